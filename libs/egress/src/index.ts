export {
  parseAllowlist,
  assertPublicUrl,
  createGuardedFetch,
  EgressBlockedError,
  refusedBeforeSending,
  type EgressAllowlist,
  type GuardedFetch,
} from './guard';
