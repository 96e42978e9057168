import { request } from 'node:https';
import { Readable } from 'node:stream';
import { checkWebhookUrl, pinnedLookup, type WebhookTargetPolicy } from '../../core/net/webhook-target.ts';

export interface GuardedFetchPolicy extends WebhookTargetPolicy {
  /** Tests only: a certificate authority to trust besides the system's (a local https server). */
  ca?: string;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * A fetch for documents named by strangers (OAuth Client ID Metadata Documents): the URL passes
 * the webhook guard (https, every address public) and the connection is pinned to the checked
 * address, so DNS cannot be rebound between check and connect. Redirects are not followed.
 */
export function guardedFetch(policy: GuardedFetchPolicy) {
  return async (input: string | URL, init: { signal?: AbortSignal | null; headers?: HeadersInit } = {}): Promise<Response> => {
    const target = await checkWebhookUrl(String(input), policy);
    if (target.url.protocol !== 'https:') throw new Error('only https URLs are fetched');
    return new Promise<Response>((resolve, reject) => {
      const req = request(
        target.url,
        {
          method: 'GET',
          headers: { accept: 'application/json', ...Object.fromEntries(new Headers(init.headers ?? {})) },
          lookup: pinnedLookup(target.address),
          signal: init.signal ?? undefined,
          ...(policy.ca && { ca: policy.ca }),
        },
        (res) => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
          }
          const status = res.statusCode ?? 502;
          const body = NULL_BODY.has(status) ? null : (Readable.toWeb(res) as ReadableStream<Uint8Array>);
          if (!body) res.resume();
          resolve(new Response(body, { status, headers }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  };
}
