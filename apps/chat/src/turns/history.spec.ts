import { historyMessages, messagePreview } from './history';
import type { MessageRecord } from './repository';

const at = new Date('2026-11-25T10:00:00.000Z');

function message(overrides: Partial<MessageRecord>): MessageRecord {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    seq: 1,
    conversationId: '00000000-0000-4000-8000-000000000002',
    role: 'user',
    userId: null,
    content: '',
    requestId: null,
    status: null,
    toolCalls: [],
    transcript: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

describe('the history a turn sends the model', () => {
  test('user text as it is; a reply as the transcript its turn stored, tool results included', () => {
    const transcript = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'echo', arguments: '{}' } }],
      },
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: 'Error: The tool call was cancelled by the user.',
      },
      { role: 'assistant', content: 'Done.' },
    ];
    expect(
      historyMessages([
        message({ content: 'hi' }),
        message({ role: 'assistant', content: 'Done.', transcript }),
      ]),
    ).toEqual([{ role: 'user', content: 'hi' }, ...transcript]);
  });

  test('a reply without a transcript is its text; an empty one is left out', () => {
    expect(
      historyMessages([
        message({ role: 'assistant', content: 'partial' }),
        message({ role: 'assistant', content: '' }),
      ]),
    ).toEqual([{ role: 'assistant', content: 'partial' }]);
  });

  test('the preview keeps 200 characters', () => {
    const preview = messagePreview(message({ content: 'x'.repeat(500), status: 'completed' }));
    expect(preview).toEqual({
      id: '00000000-0000-4000-8000-000000000001',
      role: 'user',
      content: 'x'.repeat(200),
      status: 'completed',
      created_at: '2026-11-25T10:00:00.000Z',
    });
  });
});
