export {
  developmentSubject,
  createSessionVerifier,
  mintSessionToken,
  SessionClaims,
} from './session';
export { developmentSessionSecret, mintDevelopmentSession } from './development-session';
export { mintSignInLinkToken, verifySignInLinkToken } from './sign-in-links';
export {
  signExtensionToken,
  verifyExtensionToken,
  type ExtensionTokenIssuer,
} from './extension-tokens';
export { generateApiKey, hashApiKey } from './api-keys';
export {
  parseCredentialKeys,
  sealSecret,
  openSecret,
  rewrapSecret,
  sealedKeyId,
  generateCredentialKey,
  type CredentialKeyring,
} from './credentials';
export {
  verifyStripeSignature,
  verifyGitHubSignature,
  verifyLinearSignature,
  verifySlackSignature,
  type SignatureCheck,
  type SignatureInput,
} from './webhook-signatures';
export {
  createBusSigner,
  createBusVerifier,
  generateBusKeySet,
  type BusKeySet,
} from './bus-assertions';
