import { AppError, type Actor, BUS_APIS } from '@wap/contracts';
import { type Bus } from '@wap/platform';
import { callApi } from '@wap/bus-protocol';
import type { SessionClaims } from '@wap/auth';

interface CachedUser {
  userId: string;
  email: string;
  name: string;
  expiresAt: number;
}

/** How long a subject → user mapping is reused before storage is asked again (name/email changes). */
const USER_CACHE_TTL_MS = 5 * 60_000;
const USER_CACHE_MAX_ENTRIES = 10_000;

/**
 * Maps verified session claims to an Actor. Users are created by storage on first sight of a
 * subject; the mapping is cached so that a warm request costs no extra bus round trip.
 */
export function createActorResolver(deps: { bus: Bus; timeoutMs: number; now: () => number }) {
  const { now } = deps;
  const cache = new Map<string, CachedUser>();

  return async function resolveActor(claims: SessionClaims): Promise<Actor> {
    const cached = cache.get(claims.sub);
    if (
      cached &&
      cached.expiresAt > now() &&
      cached.email === claims.email &&
      cached.name === claims.name
    ) {
      return actorOf(claims, cached.userId);
    }
    const reply = await callApi(
      deps.bus,
      BUS_APIS.ensureUser,
      { subject: claims.sub, email: claims.email, name: claims.name },
      { timeoutMs: deps.timeoutMs },
    ).catch((error: unknown) => {
      if (error instanceof AppError) throw error;
      throw new AppError('SERVICE_UNAVAILABLE', 'The directory service is unavailable');
    });
    if (cache.size >= USER_CACHE_MAX_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(claims.sub, {
      userId: reply.userId,
      email: claims.email,
      name: claims.name,
      expiresAt: now() + USER_CACHE_TTL_MS,
    });
    return actorOf(claims, reply.userId);
  };
}

function actorOf(claims: SessionClaims, userId: string): Actor {
  return {
    userId,
    subject: claims.sub,
    email: claims.email,
    name: claims.name,
    platformAdmin: claims.platformAdmin,
  };
}
