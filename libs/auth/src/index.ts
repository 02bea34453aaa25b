export {
  developmentSubject,
  createSessionVerifier,
  mintSessionToken,
  SessionClaims,
  type SessionVerifier,
  type SessionVerifierOptions,
  type JwksVerifierOptions,
  type SecretVerifierOptions,
  type MintSessionTokenOptions,
} from './session';
export {
  developmentSessionSecret,
  mintDevelopmentSession,
  type DevelopmentSessionRequest,
} from './development-session';
export {
  mintSignInLinkToken,
  verifySignInLinkToken,
  SIGN_IN_LINK_LIFETIME_SECONDS,
  type SignInLinkClaims,
} from './sign-in-links';
export {
  signExtensionToken,
  verifyExtensionToken,
  extensionAudience,
  EXTENSION_TOKEN_TYPE,
  type ExtensionTokenIssuer,
  type ExtensionTokenVerdict,
} from './extension-tokens';
export { generateApiKey, hashApiKey, apiKeysEqual, type GeneratedApiKey } from './api-keys';
export {
  parseCredentialKeys,
  sealSecret,
  openSecret,
  rewrapSecret,
  sealedKeyId,
  generateCredentialKey,
  CredentialError,
  type CredentialKey,
  type CredentialKeyring,
} from './credentials';
export {
  verifyStripeSignature,
  verifyGitHubSignature,
  verifyLinearSignature,
  verifySlackSignature,
  STRIPE_TOLERANCE_SECONDS,
  SLACK_TOLERANCE_SECONDS,
  LINEAR_TOLERANCE_MS,
  type SignatureCheck,
  type SignatureInput,
  type SignedHeaders,
} from './webhook-signatures';
export {
  createBusSigner,
  createBusVerifier,
  generateBusKeySet,
  BusAssertionError,
  BUS_ASSERTION_LIFETIME_SECONDS,
  type BusSigner,
  type BusVerifier,
  type BusKeySet,
  type BusAssertionClaims,
  type BusAssertionRefusal,
  type VerifiedAssertion,
} from './bus-assertions';
