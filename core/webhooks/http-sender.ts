import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export interface WebhookRequest {
  url: URL;
  headers: Record<string, string>;
  body: string;
  /** Aborted when the attempt times out or the worker stops. */
  signal: AbortSignal;
  /** Replaces DNS for this connection (Cloud pins it to the address it checked). */
  lookup?: LookupFunction;
}

export interface WebhookResponse {
  status: number;
  /** The first bytes of the answer, as text. */
  excerpt: string;
}

/** Sends one delivery; rejects on network errors and on abort. Redirects are answers, never followed. */
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookResponse>;

export const RESPONSE_EXCERPT_BYTES = 512;

/**
 * A sender over node:http(s) with kept-alive connections. It reads at most the excerpt and then
 * drops the connection's remaining answer, so a receiver streaming a huge body costs nothing.
 */
export function createHttpSender(options: { maxSockets: number }): WebhookSender & { close(): void } {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets: options.maxSockets }),
    'https:': new https.Agent({ keepAlive: true, maxSockets: options.maxSockets }),
  };
  const send: WebhookSender = ({ url, headers, body, signal, lookup }) =>
    new Promise((resolve, reject) => {
      const transport = url.protocol === 'https:' ? https : http;
      const agent = url.protocol === 'https:' ? agents['https:'] : agents['http:'];
      const payload = Buffer.from(body, 'utf8');
      const req = transport.request(
        url,
        { method: 'POST', agent, signal, lookup, headers: { ...headers, 'content-length': String(payload.length) } },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          const finish = () => {
            resolve({ status: res.statusCode ?? 0, excerpt: Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') });
          };
          res.on('data', (chunk: Buffer) => {
            if (size >= RESPONSE_EXCERPT_BYTES) return;
            chunks.push(chunk);
            size += chunk.length;
            if (size >= RESPONSE_EXCERPT_BYTES) {
              finish();
              res.destroy();
            }
          });
          res.on('end', finish);
          res.on('error', (error) => (size >= RESPONSE_EXCERPT_BYTES ? undefined : reject(error)));
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  return Object.assign(send, {
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  });
}
