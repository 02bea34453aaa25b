export {
  parseAllowlist,
  isAddressAllowed,
  assertPublicUrl,
  createGuardedFetch,
  EgressBlockedError,
  refusedBeforeSending,
  type EgressAllowlist,
  type GuardedFetch,
  type GuardedFetchOptions,
} from './guard';
