import type { Logger } from 'pino';
import { DIRECTORY_SUBJECTS, MeChanged, type MeResponse } from '@wap/contracts';

/** `/me` as stored for a user; the session adds `platform_admin` to each answer. */
export type StoredMe = Omit<MeResponse, 'platform_admin'>;
import { decodeJson, encodeJson, type Bus, type Subscription } from '@wap/platform';

/** Users whose answer is kept; the oldest entry goes first beyond this. */
const MAX_ENTRIES = 10_000;
/**
 * Longest an answer is reused. Invalidation is pushed, so this only bounds the damage of a
 * broadcast lost while a replica was disconnected from NATS.
 */
const MAX_AGE_MS = 60_000;

export interface MeCache {
  /** The cached answer of `GET /me` for the user, if any and still current. */
  get(userId: string): StoredMe | undefined;
  /**
   * Reads the answer with `load` and keeps it, unless a change reached this replica meanwhile:
   * then the answer is returned but not kept, as it may predate the change.
   */
  load(userId: string, load: () => Promise<StoredMe | null>): Promise<StoredMe | null>;
  /**
   * What `/me` answers for these users changed (committed): drops them here at once, so this
   * replica's next answer is current, and tells every other replica over the bus.
   */
  changed(userIds: readonly string[]): void;
  /** Stops listening for other replicas' changes. */
  stop(): Promise<void>;
}

/**
 * The answers of `GET /me`, kept per user, so that the platform's most frequent request costs
 * no SQL. Every write that changes an answer (profile, preferences, a workspace created, joined
 * or deleted) calls `changed` after its commit and before its reply; the broadcast it sends is
 * queued on this replica's NATS connection before the reply is, so a replica gets it before
 * any request the reply could have caused (decision 94).
 */
export function createMeCache(deps: { bus: Bus; logger: Logger; now: () => number }): MeCache {
  const { now } = deps;
  const answers = new Map<string, { body: StoredMe; keptAt: number }>();
  /** Counts every change seen, so that a read which raced one is not kept. */
  let changesSeen = 0;

  function drop(userIds: readonly string[]): void {
    changesSeen += 1;
    for (const userId of userIds) answers.delete(userId);
  }

  const subscription: Subscription = deps.bus.subscribe(DIRECTORY_SUBJECTS.meChanged, (message) => {
    const parsed = MeChanged.safeParse(decodeJson(message.data));
    if (!parsed.success) {
      deps.logger.warn('ignoring a /me change that does not parse');
      return;
    }
    drop(parsed.data.userIds);
  });

  return {
    get(userId) {
      const kept = answers.get(userId);
      if (!kept) return undefined;
      if (now() - kept.keptAt < MAX_AGE_MS) return kept.body;
      answers.delete(userId);
      return undefined;
    },

    async load(userId, load) {
      const before = changesSeen;
      const body = await load();
      if (body && changesSeen === before) {
        if (answers.size >= MAX_ENTRIES) {
          const oldest = answers.keys().next().value;
          if (oldest !== undefined) answers.delete(oldest);
        }
        answers.set(userId, { body, keptAt: now() });
      }
      return body;
    },

    changed(userIds) {
      if (userIds.length === 0) return;
      drop(userIds);
      deps.bus.publish(
        DIRECTORY_SUBJECTS.meChanged,
        encodeJson({ userIds: [...userIds] } satisfies MeChanged),
      );
    },

    stop: () => subscription.unsubscribe(),
  };
}
