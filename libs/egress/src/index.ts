export {
  parseAllowlist,
  isAddressAllowed,
  assertPublicUrl,
  createGuardedFetch,
  EgressBlockedError,
  type EgressAllowlist,
  type GuardedFetch,
  type GuardedFetchOptions,
} from './guard';
