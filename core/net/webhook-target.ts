import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { ServiceError } from '../errors.ts';
import { isPublicAddress } from './public-address.ts';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Every address a host name resolves to; injected so tests never touch the network. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));

export interface WebhookTargetPolicy {
  resolve: Resolver;
  /**
   * Development and tests only: also accept plain http, any port and loopback addresses (still
   * pinned and re-checked). Refused at start with NODE_ENV=production.
   */
  allowLoopback: boolean;
}

/** A checked webhook target: connect to `address`, never to a fresh DNS answer. */
export interface WebhookTarget {
  url: URL;
  address: ResolvedAddress;
}

const LOOPBACK = /^(127\.|::1$|::ffff:127\.)/;

function invalid(message: string): ServiceError {
  return new ServiceError('invalid_webhook_url', message);
}

/**
 * Checks a webhook URL: https, default port, no credentials, and a host whose every address is
 * public (one private answer among public ones fails the whole URL, so a resolver cannot pick
 * the private one later). Used at save time and again before every delivery.
 */
export async function checkWebhookUrl(text: unknown, policy: WebhookTargetPolicy): Promise<WebhookTarget> {
  if (typeof text !== 'string' || text.length > 2048) throw invalid('webhook_url must be an https URL of at most 2048 characters.');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('webhook_url is not a URL.');
  }
  const devHttp = policy.allowLoopback && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !devHttp) throw invalid('webhook_url must be https.');
  if (url.port !== '' && !policy.allowLoopback) throw invalid('webhook_url must use the default https port (443).');
  if (url.username || url.password) throw invalid('webhook_url must not carry credentials.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      throw invalid(`webhook_url host ${host} does not resolve.`);
    }
  }
  if (addresses.length === 0) throw invalid(`webhook_url host ${host} does not resolve.`);
  const allowed = (a: ResolvedAddress) => isPublicAddress(a.address) || (policy.allowLoopback && LOOPBACK.test(a.address));
  if (!addresses.every(allowed)) throw invalid('webhook_url must resolve only to public addresses.');
  return { url, address: addresses[0] };
}

/** A DNS replacement that always answers the address already checked: no second lookup to rebind. */
export function pinnedLookup(address: ResolvedAddress): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  }) as LookupFunction;
}
