import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorCatalogue, type ErrorCode } from '../../shared/errors.ts';
import type { WebhookReceipt } from '../../shared/webhooks.ts';
import type { Clock } from '../clock.ts';
import { verifyWebhook } from './signature.ts';


export interface ReceivedWebhook {
  eventId: string;
  /** Null when the delivery carried only the Standard Webhooks headers. */
  attempt: number | null;
  timestamp: number;
  duplicate: boolean;
  payload: Record<string, unknown>;
}

export interface WebhookReceiverOptions {
  secret: string;
  path: string;
  clock: Clock;
  /** Also accept deliveries signed only with the legacy `X-Service-Signature` (see `verifyWebhook`). */
  allowLegacySignature?: boolean;
  onEvent(event: ReceivedWebhook): void;
}

const MAX_BODY_BYTES = 1024 * 1024;

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const sendError = (res: ServerResponse, code: ErrorCode, message: string) =>
  send(res, errorCatalogue[code].status, { error: { code, message } });

async function readRawBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * The request handler of the local test receiver: verifies each delivery with the same
 * `verifyWebhook` merchants use (the Standard Webhooks signature; the legacy one only when allowed),
 * remembers the signed event ids to flag re-deliveries and replays, and reports accepted events
 * through `onEvent`.
 */
export function createWebhookReceiverHandler(options: WebhookReceiverOptions) {
  const seen = new Set<string>();
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://receiver').pathname;
    if (req.method !== 'POST' || path !== options.path) {
      return sendError(res, 'not_found', `Deliveries go to POST ${options.path}.`);
    }
    const raw = await readRawBody(req);
    if (!raw) return sendError(res, 'bad_body', `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    const verdict = verifyWebhook(raw, req.headers, options.secret, options.clock.now(), { allowLegacySignature: options.allowLegacySignature });
    if (!verdict.ok) return sendError(res, verdict.code, verdict.message);
    let payload: unknown;
    try {
      payload = JSON.parse(raw.toString('utf8'));
    } catch {
      return sendError(res, 'bad_body', 'The signed body is not JSON.');
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      return sendError(res, 'bad_body', 'The signed body is not a JSON object.');
    }
    const duplicate = seen.has(verdict.eventId);
    seen.add(verdict.eventId);
    options.onEvent({ ...verdict, duplicate, payload: payload as Record<string, unknown> });
    const receipt: WebhookReceipt = { ok: true, event_id: verdict.eventId, attempt: verdict.attempt, duplicate };
    send(res, 200, receipt);
  };
}

/** One readable block per event for a terminal. */
export function formatReceivedWebhook(event: ReceivedWebhook): string {
  const kind = typeof event.payload.event === 'string' ? event.payload.event : 'event';
  const head = `${new Date(event.timestamp).toISOString()}  ${kind}  ${event.eventId}  ${event.attempt === null ? 'Standard Webhooks' : `attempt ${event.attempt}`}${event.duplicate ? '  (duplicate)' : ''}`;
  // The kind and the id are in the head line already.
  const fields = Object.entries(event.payload)
    .filter(([key]) => key !== 'event' && key !== 'event_id')
    .map(([key, value]) => `  ${key.padEnd(14)} ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [head, ...fields].join('\n');
}

export interface RunningReceiver {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function startWebhookReceiver(
  options: WebhookReceiverOptions & { host: string; port: number },
): Promise<RunningReceiver> {
  const handler = createWebhookReceiverHandler(options);
  const server = createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) sendError(res, 'internal_error', 'The receiver failed to read the request.');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}${options.path}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
