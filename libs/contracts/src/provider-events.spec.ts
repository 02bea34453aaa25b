import { eventMatches, ProviderEventsTrigger } from './provider-events';

describe('provider event filters', () => {
  test('a full name takes that event, a prefix every action under it, * everything', () => {
    expect(eventMatches(['pull_request.opened'], 'pull_request.opened')).toBe(true);
    expect(eventMatches(['pull_request.opened'], 'pull_request.closed')).toBe(false);
    expect(eventMatches(['pull_request'], 'pull_request.closed')).toBe(true);
    // A prefix stops at a dot: `pull` is not `pull_request`.
    expect(eventMatches(['pull'], 'pull_request.opened')).toBe(false);
    expect(eventMatches(['*'], 'invoice.paid')).toBe(true);
    expect(eventMatches([], 'invoice.paid')).toBe(false);
  });

  test('filters are event names, one to twenty of them', () => {
    const valid = { provider: 'github', events: ['pull_request.opened', 'issues', '*'] };
    expect(ProviderEventsTrigger.safeParse(valid).success).toBe(true);
    for (const events of [[], ['a b'], ['pull_request.'], ['.x'], Array(21).fill('push')]) {
      expect(ProviderEventsTrigger.safeParse({ provider: 'github', events }).success).toBe(false);
    }
    expect(ProviderEventsTrigger.safeParse({ provider: 'gitlab', events: ['push'] }).success).toBe(
      false,
    );
  });
});
