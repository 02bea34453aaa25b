export {
  createDirectoryClient,
  type DirectoryClient,
  type DirectoryClientDeps,
} from './directory-client';
