export { createDirectoryClient, type DirectoryClient } from './directory-client';
