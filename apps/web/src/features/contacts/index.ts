export { contactsFeature } from './contacts-feature';
