import { natsPermissions, inboxPrefixOf } from './bus-permissions';
import { REQUEST_SUBJECTS, requestSubjectSpec, routeSubjects } from './bus-registry';
import { START_RUN_SUBJECT, WEBHOOK_RECEIVED_SUBJECT } from './automation';
import { ROUTES } from './routes';

describe('NATS permissions derived from the subject registry', () => {
  test('no two request subjects are one: a bus API and a route sharing one answer each other’s callers', () => {
    const subjects = REQUEST_SUBJECTS.map((spec) => spec.subject);
    const twice = subjects.filter((subject, index) => subjects.indexOf(subject) !== index);
    expect(twice).toEqual([]);
  });

  test('a service may publish what it calls and subscribe to what it serves, and nothing of the others', () => {
    const chat = natsPermissions('chat');
    expect(chat.publish.allow).toContain('mcp.api.call_tool.v1');
    expect(chat.publish.allow).toContain('chat.evt.turn_progress.v1');
    expect(chat.subscribe.allow).toContain('chat.api.create_conversation.v1');
    expect(chat.subscribe.allow).not.toContain('chat.api.create_conversation.v1.*');
    expect(chat.subscribe.allow).toContain('chat.api.control_turn.v1.*');
    expect(chat.subscribe.allow).toContain(`${inboxPrefixOf('chat')}.>`);
    expect(chat.publish.allow).not.toContain('storage.api.add_member.v1');
    expect(chat.subscribe.allow).not.toContain('storage.api.add_member.v1');
    expect(chat.subscribe.allow).not.toContain('_INBOX.>');
    // JetStream only on the streams and buckets it uses.
    expect(chat.publish.allow).toContain('$JS.API.DIRECT.GET.KV_directory');
    expect(chat.publish.allow.some((subject) => subject.includes('RUNS'))).toBe(false);
  });

  test.each([
    [
      'directory',
      'storage',
      ['chat', 'mcp-registry', 'workflow-runner', 'webhook-ingest', 'operator'],
    ],
    ['webhooks', 'workflow-runner', ['webhook-ingest']],
    ['credit-balances', 'workflow-runner', ['webhook-ingest']],
  ] as const)(
    'the %s bucket is written by %s alone: its readers may read it and nothing more',
    (bucket, owner, readers) => {
      const stream = `KV_${bucket}`;
      const writes = [
        `$KV.${bucket}.>`,
        `$JS.API.STREAM.*.${stream}`,
        `$JS.API.STREAM.MSG.*.${stream}`,
      ];
      for (const subject of writes) expect(natsPermissions(owner).publish.allow).toContain(subject);
      for (const reader of readers) {
        const allowed = natsPermissions(reader).publish.allow;
        for (const subject of writes)
          expect({ reader, allowed: allowed.includes(subject) }).toEqual({
            reader,
            allowed: false,
          });
        expect(allowed).toContain(`$JS.API.STREAM.INFO.${stream}`);
        expect(allowed).toContain(`$JS.API.DIRECT.GET.${stream}.>`);
        // No wildcard that NATS would match against a write of this bucket either.
        expect(
          allowed.filter((subject) =>
            /^\$KV\.(\*|>)|^\$JS\.API\.STREAM\.(\*|>)\.?(\*|>)?$/.test(subject),
          ),
        ).toEqual([]);
      }
    },
  );

  test('only the gateway may call the routes; the operators only their few', () => {
    const route = ROUTES.find((candidate) => candidate.operationId === 'add_member');
    if (!route) throw new Error('no add_member route');
    for (const principal of ['storage', 'chat', 'workflow-runner', 'webhook-ingest'] as const) {
      expect(natsPermissions(principal).publish.allow).not.toContain(route.subject);
    }
    expect(natsPermissions('gateway').publish.allow).toContain(route.subject);
    expect(natsPermissions('operator').publish.allow).not.toContain(route.subject);
    expect(natsPermissions('operator').publish.allow).toContain('workflow.api.grant_credits.v1');
  });

  test('dead letters: workflow-runner writes them; the operators read, delete and replay them', () => {
    const runner = natsPermissions('workflow-runner');
    expect(runner.publish.allow).toContain('deadletter.>');
    expect(runner.publish.allow).toContain('$JS.API.STREAM.*.DEAD_LETTERS');
    const operator = natsPermissions('operator');
    expect(operator.publish.allow).toContain('$JS.API.STREAM.MSG.*.DEAD_LETTERS');
    expect(operator.publish.allow).not.toContain('deadletter.>');
    // Replay publishes to the subjects the messages first came to.
    expect(operator.publish.allow).toContain(WEBHOOK_RECEIVED_SUBJECT);
    expect(operator.publish.allow).toContain(START_RUN_SUBJECT);
    for (const principal of ['storage', 'chat', 'mcp-registry', 'gateway'] as const) {
      const allowed = natsPermissions(principal).publish.allow;
      expect(allowed.some((subject) => subject.includes('DEAD_LETTERS'))).toBe(false);
    }
  });

  test("a new route or subject changes exactly its caller's and server's lists", () => {
    const before = natsPermissions('storage');
    const added = routeSubjects({
      ...ROUTES[0],
      operationId: 'spec_only',
      subject: 'storage.api.spec_only.v1',
    });
    const registry = [...REQUEST_SUBJECTS, ...added];
    const after = natsPermissions('storage', { registry });
    expect(after.subscribe.allow).toEqual(
      [...before.subscribe.allow, 'storage.api.spec_only.v1'].sort(),
    );
    expect(after.publish.allow).toEqual(before.publish.allow);
    expect(natsPermissions('gateway', { registry }).publish.allow).toContain(
      'storage.api.spec_only.v1',
    );
  });

  test('a namespace prefixes subjects, streams and buckets', () => {
    const runner = natsPermissions('workflow-runner', { namespace: 'acme' });
    expect(runner.subscribe.allow).toContain('acme.workflow.api.get_run.v1');
    expect(runner.publish.allow).toContain('acme.workflow.cmd.start_run.v1');
    expect(runner.publish.allow).toContain('$JS.API.CONSUMER.*.*.ACME_RUNS.>');
    expect(runner.publish.allow).toContain('$KV.acme_webhooks.>');
  });

  test('every per-instance subject resolves to its registry entry', () => {
    expect(requestSubjectSpec('chat.api.control_turn.v1.4b7c1f0e')?.server).toBe('chat');
    expect(requestSubjectSpec('webhook.api.replica_alive.v1.r1')?.server).toBe('webhook-ingest');
    expect(requestSubjectSpec('storage.api.not_a_subject.v1')).toBeUndefined();
  });
});
