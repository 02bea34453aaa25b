import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Clock } from '@wap/platform';
import { testRuntimes, type RuntimeUnderTest } from '@wap/testing';
import { createTurnRepository } from '../turns/repository';
import { createConversationRepository, type ConversationRepository } from './repository';

const OWNER = '44444444-4444-4444-8444-444444444444';

/**
 * What the e2e spec cannot reach through the gateway: a frozen clock, so that chats share their
 * activity time and the list must fall back on ids to order and page them.
 */
describe.each(testRuntimes('chat-conversations'))(
  'the conversation repository on %s',
  (_, start) => {
    let runtime: RuntimeUnderTest;
    let repository: ConversationRepository;
    let time = new Date('2025-03-01T10:00:00.000Z');
    const clock: Clock = { now: () => new Date(time) };

    beforeAll(async () => {
      runtime = await start();
      await runtime.platform.sql.migrate({
        schema: 'chat',
        migrationsFolder: path.join(__dirname, '../../migrations'),
      });
      repository = createConversationRepository({
        db: runtime.platform.sql.db,
        clock,
        ids: runtime.platform.ids,
      });
    });
    afterAll(async () => {
      await runtime?.cleanup();
    });

    function newChat(workspaceId: string, title: string) {
      return repository.create({
        workspaceId,
        userId: OWNER,
        projectId: null,
        title,
        source: null,
        accessType: 'private',
        metadata: null,
      });
    }

    test('chats with one activity time are ordered and paged by id, none twice, none skipped', async () => {
      const workspaceId = randomUUID();
      time = new Date('2025-03-01T10:00:00.000Z');
      const tied = await Promise.all(
        Array.from({ length: 5 }, (_, index) => newChat(workspaceId, `tied ${index}`)),
      );
      time = new Date('2025-03-01T11:00:00.000Z');
      const newest = await newChat(workspaceId, 'newest');
      const expected = [
        newest.id,
        ...tied
          .map((chat) => chat.id)
          .sort()
          .reverse(),
      ];

      const pages: string[][] = [];
      let after: { at: Date; id: string } | null = null;
      for (;;) {
        const page = await repository.listForViewer({
          workspaceId,
          userId: OWNER,
          archived: false,
          after,
          limit: 2,
        });
        if (page.length === 0) break;
        pages.push(page.map((row) => row.record.id));
        const last = page.at(-1)?.record;
        after = last ? { at: last.lastActivityAt, id: last.id } : null;
      }
      expect(pages.flat()).toEqual(expected);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 2]);
    });

    test("a turn's start moves its chat to the top and sets its last message", async () => {
      const workspaceId = randomUUID();
      time = new Date('2025-03-02T10:00:00.000Z');
      const older = await newChat(workspaceId, 'older');
      time = new Date('2025-03-02T10:00:01.000Z');
      const newer = await newChat(workspaceId, 'newer');
      const at = new Date('2025-03-02T12:00:00.000Z');
      time = at;
      const turns = createTurnRepository({
        db: runtime.platform.sql.db,
        clock,
        ids: runtime.platform.ids,
      });
      const { userMessage } = await turns.startTurn({
        requestId: randomUUID(),
        conversationId: older.id,
        workspaceId,
        userId: OWNER,
        content: 'hi',
        owner: 'replica-1',
      });

      const page = await repository.listForViewer({
        workspaceId,
        userId: OWNER,
        archived: null,
        after: null,
        limit: 10,
      });
      expect(page.map((row) => row.record.id)).toEqual([older.id, newer.id]);
      expect(await repository.findById(older.id)).toMatchObject({
        lastMessage: {
          id: userMessage.id,
          role: 'user',
          content: 'hi',
          status: null,
          created_at: at.toISOString(),
        },
        lastActivityAt: at,
        createdAt: new Date('2025-03-02T10:00:00.000Z'),
      });
    });

    test('concurrent access requests of one requester leave one pending request', async () => {
      const chat = await newChat(randomUUID(), 'wanted');
      const requester = randomUUID();
      await repository.rememberPerson({ userId: requester, name: 'Grace' });
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => repository.requestAccess(chat.id, requester)),
      );
      expect(answers.filter((answer) => answer.created)).toHaveLength(1);
      expect(new Set(answers.map((answer) => answer.request.id)).size).toBe(1);
      expect(await repository.pendingRequests(chat.id)).toEqual([
        expect.objectContaining({ userId: requester, userName: 'Grace', status: 'pending' }),
      ]);
    });
  },
);
