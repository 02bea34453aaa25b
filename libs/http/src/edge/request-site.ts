/**
 * Whether a request a browser may have sent carrying the session cookie came from a page of
 * the platform itself or of a trusted origin (decision 118): a page elsewhere must not spend
 * the cookie on an unsafe request, nor sign a visitor in.
 *
 * A trusted `Origin` (PUBLIC_BASE_URL, WEB_ORIGIN, or the request's own origin) is enough.
 * Otherwise `Sec-Fetch-Site` decides where a browser sends it: `same-origin` and `none` (the
 * address bar, a bookmark) pass, `same-site` and `cross-site` do not. A browser too old to send
 * it still sends `Origin` on unsafe requests, which then must be trusted; on navigations it
 * sends `Referer`, whose origin then must be. A request with none of the three comes from a
 * program, not a page, and no page can make it.
 */
export type RequestSiteCheck = (req: RequestOfSite) => boolean;

/** What the check reads of a request: Express's and the edge's requests both have it. */
export interface RequestOfSite {
  protocol: string;
  header(name: string): string | undefined;
}

export function createRequestSiteCheck(
  trustedOrigins: readonly (string | undefined)[],
): RequestSiteCheck {
  const trusted = new Set<string>();
  for (const origin of trustedOrigins) if (origin) trusted.add(new URL(origin).origin);
  const isTrusted = (origin: string, req: RequestOfSite): boolean =>
    trusted.has(origin) || origin === `${req.protocol}://${req.header('host') ?? ''}`;

  return (req) => {
    const origin = req.header('origin');
    if (origin !== undefined && origin !== 'null' && isTrusted(origin, req)) return true;
    const fetchSite = req.header('sec-fetch-site');
    if (fetchSite !== undefined) return fetchSite === 'same-origin' || fetchSite === 'none';
    if (origin !== undefined) return false;
    const referer = req.header('referer');
    if (referer === undefined) return true;
    try {
      return isTrusted(new URL(referer).origin, req);
    } catch {
      return false;
    }
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isUnsafeMethod(method: string): boolean {
  return !SAFE_METHODS.has(method);
}
