import { appPaths } from './app-paths';

const STORAGE_KEY = 'wap.return-path';

/**
 * A page of the app only: `/app/...`, never the sign-in page, never another origin
 * (`//host`, a backslash trick or a scheme), so a stored path cannot send anyone elsewhere.
 */
function isReturnablePath(path: string): boolean {
  return (
    /^\/app\/[^/\\]/.test(path) &&
    !path.startsWith(appPaths.signIn()) &&
    !path.includes('\\') &&
    ![...path].some((character) => character.charCodeAt(0) < 0x20)
  );
}

/**
 * Remembers the page a person was on when their session was found missing or ended (an
 * approval email's link, say), so that signing in brings them back to it. Kept in this tab's
 * sessionStorage: sign-in leaves the app for a full page load.
 */
export function rememberReturnPath(location: {
  pathname: string;
  search: string;
  hash: string;
}): void {
  const path = `${location.pathname}${location.search}${location.hash}`;
  if (!isReturnablePath(path)) return;
  try {
    sessionStorage.setItem(STORAGE_KEY, path);
  } catch {
    // Storage refused (private mode, quota): the person lands on their home page instead.
  }
}

/** The remembered page, once: it is forgotten as it is read. */
export function takeReturnPath(): string | null {
  try {
    const path = sessionStorage.getItem(STORAGE_KEY);
    sessionStorage.removeItem(STORAGE_KEY);
    return path !== null && isReturnablePath(path) ? path : null;
  } catch {
    return null;
  }
}
