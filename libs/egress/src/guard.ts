import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Agent, fetch as undiciFetch } from 'undici';

/**
 * Outbound HTTP to addresses users chose (MCP servers, workflow http_request steps) must not
 * reach the platform's own network: loopback, private, link-local (cloud metadata), CGNAT,
 * IPv4-mapped and other non-unicast addresses are refused after DNS resolution, at every
 * connection, so a name that resolves to a public address at registration and to a private one
 * later (DNS rebinding) is still refused.
 */

/** Hosts and CIDR ranges that may be reached although they are not public (tests, private deployments). */
export interface EgressAllowlist {
  hosts: ReadonlySet<string>;
  ranges: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
}

/** The target is not a public address and not on the allow-list; the message is safe to show. */
export class EgressBlockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EgressBlockedError';
  }
}

/** Failures of a guarded fetch that came before any request of it was sent. */
const refusedUnsent = new WeakSet<object>();

/**
 * Whether a guarded fetch failed because the guard refused its target before anything was sent
 * (a private address, a host that resolves to one, a scheme it does not reach): nothing left the
 * platform. A refused redirect is not such a failure, since the first request went out.
 */
export function refusedBeforeSending(error: unknown): boolean {
  if (typeof error !== 'object' || error === null || !refusedUnsent.has(error)) return false;
  const cause = (error as { cause?: unknown }).cause;
  return error instanceof EgressBlockedError || cause instanceof EgressBlockedError;
}

/** Parses `SSRF_ALLOWLIST`: comma-separated host names, IP addresses and CIDR ranges. */
export function parseAllowlist(spec: string | undefined): EgressAllowlist {
  const hosts = new Set<string>();
  const ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  for (const raw of (spec ?? '').split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry.includes('/')) {
      ranges.push(ipaddr.parseCIDR(entry));
    } else if (ipaddr.isValid(entry)) {
      const address = ipaddr.process(entry);
      ranges.push([address, address.kind() === 'ipv4' ? 32 : 128]);
    } else {
      hosts.add(entry);
    }
  }
  return { hosts, ranges };
}

/**
 * IPv6 ranges ipaddr.js calls unicast that carry an IPv4 address: IPv4-compatible `::a.b.c.d`
 * (deprecated; `[::127.0.0.1]` reaches loopback on some stacks) and local-use NAT64.
 */
const EMBEDDED_IPV4_RANGES = [ipaddr.parseCIDR('::/96'), ipaddr.parseCIDR('64:ff9b:1::/48')];

/** True when `address` is public unicast, or falls in an allow-listed range. */
export function isAddressAllowed(address: string, allowlist: EgressAllowlist): boolean {
  if (!ipaddr.isValid(address)) return false;
  // process() turns IPv4-mapped IPv6 (::ffff:127.0.0.1) into the IPv4 address it carries.
  const parsed = ipaddr.process(address);
  for (const [base, bits] of allowlist.ranges) {
    if (base.kind() === parsed.kind() && parsed.match(base, bits)) return true;
  }
  const embedsIpv4 = EMBEDDED_IPV4_RANGES.some(
    ([base, bits]) => parsed.kind() === 'ipv6' && parsed.match(base, bits),
  );
  return !embedsIpv4 && parsed.range() === 'unicast';
}

function hostOf(url: URL): string {
  // URL keeps IPv6 literals in brackets.
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

function describe(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

function resolveAll(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) reject(error);
      else resolve(addresses);
    });
  });
}

/**
 * Refuses a URL whose host is not public: IP literals are checked as they are, names after
 * resolving every address they have (any private one refuses the name). Allow-listed host names
 * pass without a lookup. Fails with EgressBlockedError, or with the DNS error for unknown names.
 */
export async function assertPublicUrl(
  url: string | URL,
  options: { allowlist: EgressAllowlist },
): Promise<void> {
  const target = typeof url === 'string' ? new URL(url) : url;
  if (target.protocol !== 'https:' && target.protocol !== 'http:') {
    throw new EgressBlockedError(`Only http and https URLs can be reached: ${target.protocol}`);
  }
  const host = hostOf(target);
  if (options.allowlist.hosts.has(host)) return;
  const addresses = isIP(host) ? [host] : (await resolveAll(host)).map((entry) => entry.address);
  if (addresses.length === 0 || !addresses.every((a) => isAddressAllowed(a, options.allowlist))) {
    throw new EgressBlockedError(`${describe(target)} is not a public address`);
  }
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `net.connect` lookup that refuses non-public addresses of names not on the allow-list. */
function guardedLookup(allowlist: EgressAllowlist) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, []);
        return;
      }
      const allowedName = allowlist.hosts.has(hostname.toLowerCase());
      if (
        addresses.length === 0 ||
        (!allowedName && !addresses.every((entry) => isAddressAllowed(entry.address, allowlist)))
      ) {
        callback(new EgressBlockedError(`${hostname} does not resolve to a public address`), []);
        return;
      }
      if (options.all) {
        callback(null, addresses);
        return;
      }
      const first = addresses[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

export interface GuardedFetchOptions {
  allowlist: EgressAllowlist;
  /** Extra certificate authorities to trust (PEM), besides the system's; for tests and private PKI. */
  ca?: string[];
  /** Time allowed for the TCP and TLS handshake, in milliseconds. Default 10 s. */
  connectTimeoutMs?: number;
  /** Redirects followed (each one checked like the first URL). Default 5. */
  maxRedirects?: number;
}

/** A WHATWG fetch whose every connection and redirect goes through the SSRF guard. */
export type GuardedFetch = ((input: string | URL, init?: RequestInit) => Promise<Response>) & {
  /** Closes the pooled connections. */
  close(): Promise<void>;
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Headers a redirect to another origin keeps: none of them can carry a credential. Every other
 * header is dropped, because a step or an MCP server's auth may put a secret under any name
 * (`Authorization`, `Cookie`, `x-api-key`, a header of the user's choosing).
 */
const CROSS_ORIGIN_SAFE_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'mcp-protocol-version',
  'pragma',
  'traceparent',
  'tracestate',
  'user-agent',
]);

/** Headers that describe a request body, dropped with the body when a redirect turns it into a GET. */
const BODY_HEADERS = ['content-encoding', 'content-language', 'content-location', 'content-type'];

function withoutCredentials(headers: RequestInit['headers']): Headers {
  const kept = new Headers();
  for (const [name, value] of new Headers(headers)) {
    if (CROSS_ORIGIN_SAFE_HEADERS.has(name)) kept.append(name, value);
  }
  return kept;
}

/**
 * Builds the fetch for user-chosen URLs on an undici Agent (Node's global fetch ignores http
 * agents): its `connect.lookup` refuses private addresses, IP-literal hosts are checked before
 * connecting, redirects are followed by hand so each hop is checked, a redirect from https to
 * http is refused, and a redirect to another origin carries no header that could hold a
 * credential.
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const { allowlist } = options;
  const maxRedirects = options.maxRedirects ?? 5;
  const agent = new Agent({
    connect: {
      lookup: guardedLookup(allowlist),
      timeout: options.connectTimeoutMs ?? 10_000,
      // Node's bundled CAs stay trusted when a private CA is added; one secure context serves
      // every connection (parsing ~150 CA certificates per TLS handshake costs milliseconds).
      ...(options.ca && options.ca.length > 0
        ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...options.ca] }) }
        : {}),
    },
  });

  function assertLiteralHost(url: URL): void {
    const host = hostOf(url);
    if (isIP(host) && !allowlist.hosts.has(host) && !isAddressAllowed(host, allowlist)) {
      throw new EgressBlockedError(`${describe(url)} is not a public address`);
    }
  }

  async function guardedFetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    let sent = false;
    try {
      return await follow(input, init, () => {
        sent = true;
      });
    } catch (error) {
      if (!sent) refusedUnsent.add(error as object);
      throw error;
    }
  }

  async function follow(
    input: string | URL,
    init: RequestInit,
    onSent: () => void,
  ): Promise<Response> {
    let url = new URL(input);
    let requestInit: RequestInit = init;
    for (let hop = 0; ; hop += 1) {
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        throw new EgressBlockedError(`Only http and https URLs can be reached: ${url.protocol}`);
      }
      assertLiteralHost(url);
      const response = (await undiciFetch(url, {
        ...(requestInit as object),
        redirect: 'manual',
        dispatcher: agent,
      })) as unknown as Response;
      onSent();
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || !location || init.redirect === 'manual') {
        return response;
      }
      if (hop >= maxRedirects) throw new EgressBlockedError('Too many redirects');
      await response.body?.cancel();
      const next = new URL(location, url);
      if (url.protocol === 'https:' && next.protocol !== 'https:') {
        throw new EgressBlockedError('A redirect from https to http was refused');
      }
      if (next.origin !== url.origin) {
        requestInit = { ...requestInit, headers: withoutCredentials(requestInit.headers) };
      }
      const method = (requestInit.method ?? 'GET').toUpperCase();
      if (
        response.status === 303 ||
        ((response.status === 301 || response.status === 302) && method === 'POST')
      ) {
        const headers = new Headers(requestInit.headers);
        for (const name of BODY_HEADERS) headers.delete(name);
        requestInit = { ...requestInit, method: 'GET', body: undefined, headers };
      }
      url = next;
    }
  }

  return Object.assign(guardedFetch, { close: () => agent.close() });
}
