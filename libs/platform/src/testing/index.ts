export { describePlatformContract, type PlatformFactory } from './platform-contract';
