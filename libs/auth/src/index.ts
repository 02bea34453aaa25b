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
