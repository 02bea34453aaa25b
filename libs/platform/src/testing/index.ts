export { describePlatformContract } from './platform-contract';
export { sleep, waitFor } from './wait';
export { deleteStreams, recordingCreatedStreams, streamNamesOnServer } from './created-streams';
