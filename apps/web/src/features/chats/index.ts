export { chatsFeature } from './chats-feature';
