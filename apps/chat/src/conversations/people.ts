import { eq } from 'drizzle-orm';
import { people } from '../db/schema';
import type { ConversationStore } from './records';

/** Users whose written name a replica remembers at most (the map starts over past it). */
const REMEMBERED_NAMES_MAX = 10_000;

/** Names written to `people` by this replica, so that an unchanged name is not written again. */
export type RememberedNames = Map<string, string>;

/** The name last seen for a user, null when never seen. */
export async function personName(
  { db }: Pick<ConversationStore, 'db'>,
  userId: string,
): Promise<string | null> {
  const [person] = await db
    .select({ name: people.name })
    .from(people)
    .where(eq(people.userId, userId));
  return person?.name ?? null;
}

/** Keeps the name of a user seen in a session, for Access-denied bodies and requests. */
export async function rememberPerson(
  { db, clock }: ConversationStore,
  rememberedNames: RememberedNames,
  actor: { userId: string; name: string },
): Promise<void> {
  // Every message would write the same name again: a replica writes it once per change.
  if (rememberedNames.get(actor.userId) === actor.name) return;
  const now = clock.now();
  await db
    .insert(people)
    .values({ userId: actor.userId, name: actor.name, seenAt: now })
    .onConflictDoUpdate({ target: people.userId, set: { name: actor.name, seenAt: now } });
  if (rememberedNames.size >= REMEMBERED_NAMES_MAX) rememberedNames.clear();
  rememberedNames.set(actor.userId, actor.name);
}
