import { openSecret, type CredentialKeyring } from '@wap/auth';
import { REDACTED } from '@wap/contracts';
import { credentialContext, type CredentialRepository } from './repository';

/** The credentials a step names, opened, or the first one its run may not use. */
export type ResolvedCredentials =
  { ok: true; values: ReadonlyMap<string, string> } | { ok: false; name: string };

export interface CredentialResolver {
  /**
   * Opens `names` for a run of `workspaceId` acting as `actingUserId`: a `workspace` credential
   * serves every run, a `creator_only` one runs acting as its creator alone. A name that does not
   * exist and one the run may not use are the same answer (nothing says which it is).
   */
  resolve(
    workspaceId: string,
    actingUserId: string,
    names: readonly string[],
  ): Promise<ResolvedCredentials>;
}

export function createCredentialResolver(deps: {
  credentials: Pick<CredentialRepository, 'named'>;
  keyring: CredentialKeyring;
}): CredentialResolver {
  return {
    async resolve(workspaceId, actingUserId, names) {
      if (names.length === 0) return { ok: true, values: new Map() };
      const rows = await deps.credentials.named(workspaceId, names);
      const values = new Map<string, string>();
      for (const name of names) {
        const row = rows.find((candidate) => candidate.name === name);
        if (!row || (row.access !== 'workspace' && row.createdBy !== actingUserId)) {
          return { ok: false, name };
        }
        values.set(name, openSecret(deps.keyring, row.sealedValue, credentialContext(row)));
      }
      return { ok: true, values };
    },
  };
}

/**
 * `value` with every copy of a secret replaced by `[redacted]`: what a response or an error
 * brings back (an echo of the request, say) is kept in the run's history without them.
 */
export function withoutSecrets<T>(value: T, secrets: Iterable<string>): T {
  const hidden = [...secrets].filter((secret) => secret.length > 0);
  if (hidden.length === 0) return value;
  const scrub = (item: unknown): unknown => {
    if (typeof item === 'string') {
      return hidden.reduce((text, secret) => text.split(secret).join(REDACTED), item);
    }
    if (Array.isArray(item)) return item.map(scrub);
    if (item !== null && typeof item === 'object') {
      return Object.fromEntries(
        Object.entries(item).map(([key, entry]) => [scrub(key) as string, scrub(entry)]),
      );
    }
    return item;
  };
  return scrub(value) as T;
}
