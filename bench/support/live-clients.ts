/**
 * A share of the mcp-live bench's MCP sessions, in a process of their own. 1,000 sessions are
 * 1,000 clients elsewhere; in one process their parsing of a notification queues behind each
 * other's (that process spent about twice the server's CPU on one notification to 1,000 sessions),
 * and the bench timed its own backlog. Reads one JSON line on stdin:
 * {url, headers, first, count, perSession, concurrency, targets, others}; opens `count` sessions
 * (numbered from `first`), each subscribed to every target and to others up to `perSession`; prints
 * {"opened":n} as they open, {"ready":true} when all are, and {"arrival":invoice_id,"at":ms} for each
 * notifications/resources/updated. Closes its sessions and exits when stdin ends. With
 * `listen: true` each is instead a 2026-07-28 client (SDK 2) holding one `subscriptions/listen`
 * stream on the same invoices.
 */
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';

interface Share {
  url: string;
  headers: Record<string, string>;
  first: number;
  count: number;
  perSession: number;
  concurrency: number;
  targets: string[];
  others: string[];
  listen?: boolean;
}

const now = () => performance.timeOrigin + performance.now();
const say = (message: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(message)}\n`);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const share = JSON.parse((await lines.next()).value as string) as Share;

const heard = (uri: string) => void say({ arrival: uri.slice('invoice://'.length), at: now() });

/** The invoices of client `index`: every target, then others up to perSession. */
const invoicesOf = (index: number) => {
  const mine = [...share.targets];
  const extra = share.perSession - share.targets.length;
  for (let k = 0; mine.length < share.perSession; k++) mine.push(share.others[(index * extra + k) % share.others.length]!);
  return mine;
};

const clients: Array<{ close(): Promise<void> }> = [];

const openSession = async (index: number) => {
  const client = new Client({ name: `live-${index}`, version: '1.0.0' });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void heard(notification.params.uri));
  await client.connect(new StreamableHTTPClientTransport(new URL(share.url), { requestInit: { headers: share.headers } }));
  for (const invoiceId of invoicesOf(index)) await client.subscribeResource({ uri: `invoice://${invoiceId}` });
  clients.push(client);
};

const openListener = async (index: number) => {
  const client = new ModernClient({ name: `live-${index}`, version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  client.setNotificationHandler('notifications/resources/updated', (notification) => void heard(notification.params.uri));
  await client.connect(new ModernTransport(new URL(share.url), { requestInit: { headers: share.headers } }));
  await client.listen({ resourceSubscriptions: invoicesOf(index).map((invoiceId) => `invoice://${invoiceId}`) });
  clients.push(client);
};

const openOne = share.listen ? openListener : openSession;

let next = share.first;
const end = share.first + share.count;
await Promise.all(
  Array.from({ length: share.concurrency }, async () => {
    while (next < end) {
      await openOne(next++);
      if (clients.length % 50 === 0) say({ opened: clients.length });
    }
  }),
);
say({ ready: true });

while (!(await lines.next()).done);
await Promise.all(clients.map((client) => client.close().catch(() => undefined)));
process.exit(0);
