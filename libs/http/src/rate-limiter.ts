/**
 * A token bucket per webhook address, kept in this replica's memory: `burst` requests at once,
 * refilled at `perSecond`. Each replica limits on its own (see docs/decisions/0042), so the
 * limit of a deployment is the per-replica limit times the replicas behind the queue group.
 */
export interface RateLimiter {
  /** Takes one token for `address`; when none is left, how long until one is (ms). */
  take(address: string): { allowed: true } | { allowed: false; retryAfterMs: number };
}

export interface RateLimiterOptions {
  perSecond: number;
  burst: number;
  /** Addresses tracked at most; the least recently used bucket is forgotten beyond it. */
  maxAddresses: number;
  nowMs: () => number;
}

interface Bucket {
  tokens: number;
  updatedMs: number;
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const buckets = new Map<string, Bucket>();
  return {
    take(address) {
      const now = options.nowMs();
      const known = buckets.get(address);
      const bucket = known ?? { tokens: options.burst, updatedMs: now };
      const refilled = ((now - bucket.updatedMs) / 1000) * options.perSecond;
      bucket.tokens = Math.min(options.burst, bucket.tokens + refilled);
      bucket.updatedMs = now;
      // Re-inserting keeps the Map in least-recently-used order for eviction.
      buckets.delete(address);
      buckets.set(address, bucket);
      if (buckets.size > options.maxAddresses) {
        const oldest = buckets.keys().next().value;
        if (oldest !== undefined) buckets.delete(oldest);
      }
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return { allowed: true };
      }
      return { allowed: false, retryAfterMs: ((1 - bucket.tokens) / options.perSecond) * 1000 };
    },
  };
}
