import { ProtocolError, ProtocolErrorCode, ResourceTemplate, type McpServer } from '@modelcontextprotocol/server';
import type { ServerDeps } from './deps.ts';
import { MAX_SUBSCRIPTIONS, subscriptionsOf, type StatusSubscriber } from './invoice-watch.ts';
import type { ListenerFailure } from './listener-client.ts';

const PREFIX = 'invoice://';

const invoiceIdOf = (uri: string): string => {
  if (!uri.startsWith(PREFIX) || uri.length === PREFIX.length) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Not an invoice resource: ${uri} (expected invoice://<invoice_id>).`);
  return uri.slice(PREFIX.length);
};

// An unknown invoice is the SDK's resource-not-found error, which reaches the client as -32602.
const readError = (failure: ListenerFailure) =>
  new ProtocolError(failure.code === 'not_found' ? ProtocolErrorCode.ResourceNotFound : ProtocolErrorCode.InternalError, `${failure.code}: ${failure.message}`);

/**
 * Invoices as resources (`invoice://{id}`, read = the stored invoice as GET /invoice/:id returns it)
 * and subscriptions to them: `notifications/resources/updated` follows each status change.
 */
export function registerInvoiceResource(server: McpServer, deps: ServerDeps): void {
  const { listener } = deps;
  const list = listener.listInvoices;
  server.registerResource(
    'invoice',
    new ResourceTemplate(`${PREFIX}{id}`, {
      list: list
        ? async () => {
            const listed = await list({});
            if (!listed.ok) throw readError(listed.failure);
            return { resources: listed.value.invoices.map((invoice) => ({ uri: PREFIX + invoice.invoice_id, name: invoice.invoice_id, mimeType: 'application/json' })) };
          }
        : undefined,
    }),
    {
      title: 'Invoice',
      description:
        'An invoice by id, as GET /invoice/{id} returns it (JSON), with its current status, and, while x402 can pay it, its x402 payment requirements (a second entry, <uri>#x402: what its x402_url answers). Subscribe to be told when its status changes.',
      mimeType: 'application/json',
    },
    async (uri) => {
      const invoiceId = invoiceIdOf(uri.href);
      const read = await listener.getInvoice(invoiceId);
      if (!read.ok) throw readError(read.failure);
      const x402 = read.value.x402_url ? await listener.x402Requirements(invoiceId) : null;
      return {
        contents: [
          { uri: uri.href, mimeType: 'application/json', text: JSON.stringify(read.value) },
          ...(x402 ? [{ uri: `${uri.href}#x402`, mimeType: 'application/json', text: JSON.stringify(x402) }] : []),
        ],
      };
    },
  );

  // A session's subscriptions cost memory only, an entry here and one in the invoice's shared set:
  // the updates call back when a status changes. Each holds the last status the session heard.
  const statuses = new Map<string, string | undefined>();
  const shared = subscriptionsOf(deps.updates);
  const heard: StatusSubscriber = (invoiceId, status) => {
    if (!statuses.has(invoiceId)) return;
    const before = statuses.get(invoiceId);
    statuses.set(invoiceId, status);
    if (before === undefined || before === status) return;
    server.server.sendResourceUpdated({ uri: PREFIX + invoiceId }).catch((error) => deps.logger.warn('resource update not sent', { invoice_id: invoiceId, error }));
  };
  const stop = (invoiceId: string) => {
    if (statuses.delete(invoiceId)) shared.remove(invoiceId, heard);
  };
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler('resources/subscribe', async ({ params }) => {
    const invoiceId = invoiceIdOf(params.uri);
    if (statuses.has(invoiceId)) return {};
    if (statuses.size >= MAX_SUBSCRIPTIONS) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `At most ${MAX_SUBSCRIPTIONS} subscriptions per session; unsubscribe from settled invoices first.`);
    // Watched before the read, so a change made while it reads is not missed.
    statuses.set(invoiceId, undefined);
    shared.add(invoiceId, heard);
    const read = await listener.getInvoice(invoiceId);
    if (!read.ok) {
      stop(invoiceId);
      throw readError(read.failure);
    }
    if (statuses.has(invoiceId) && statuses.get(invoiceId) === undefined) statuses.set(invoiceId, read.value.status);
    return {};
  });
  server.server.setRequestHandler('resources/unsubscribe', async ({ params }) => {
    stop(invoiceIdOf(params.uri));
    return {};
  });
  const closed = server.server.onclose;
  server.server.onclose = () => {
    for (const invoiceId of [...statuses.keys()]) stop(invoiceId);
    closed?.();
  };
}
