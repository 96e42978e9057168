import type { ServerEventBus } from '@modelcontextprotocol/server';
import { MAX_SUBSCRIPTIONS, type InvoiceUpdates } from '../invoice-watch.ts';
import type { ListenerFailure, ListenerResult } from '../listener-client.ts';
import type { FairShareBounds, ShareTier } from '../../core/fair-shares.ts';
import { createInvoiceChanges, INVOICE_URI_PREFIX, type ListenedInvoice } from './invoice-changes.ts';
import { createListenStreams, type ListenStreamSlot } from './listen-streams.ts';

/**
 * JSON-RPC codes of the refusals. -32602 is also what resources/read of an unknown invoice carries
 * on the 2026-07-28 wire (the SDK sends the resource's -32002 as -32602, as that revision says).
 */
const INVALID_PARAMS = -32_602;
const INTERNAL_ERROR = -32_603;

interface Refusal {
  code: number;
  message: string;
}

/** What resources/read answers for an invoice its caller cannot read (invoice-resource.ts), word for word. */
const unreadable = (failure: ListenerFailure): Refusal => ({ code: failure.code === 'not_found' ? INVALID_PARAMS : INTERNAL_ERROR, message: `${failure.code}: ${failure.message}` });

/** Whom a listen request stands for. */
export interface ListenCaller {
  /** Who owns the stream, within MCP_MAX_SESSIONS_PER_OWNER streams: the Cloud merchant, the listener credential. */
  owner: string;
  /** The owner's plan tier on Cloud: its streams count within its plan's fair share (InvoiceListenOptions.shares). */
  tier?: ShareTier;
  /** The caller's own view of the invoices (its ListenerClient): another merchant's invoice reads as not found. */
  listener: { getInvoice(invoiceId: string): Promise<ListenerResult<{ invoice_id: string; status: string }>> };
  /** Where the caller's invoices' status changes are heard (the status feed, for its merchant only). */
  updates: InvoiceUpdates;
}

export interface InvoiceListenOptions {
  /** The bus the MCP handler's listen streams subscribe to (createMcpHandler's `bus`). */
  bus: ServerEventBus;
  /** Resource URIs one listen stream may name; default MAX_SUBSCRIPTIONS, as many as a 2025 session's subscriptions. */
  maxInvoicesPerStream?: number;
  /** Open listen streams per owner (MCP_MAX_SESSIONS_PER_OWNER, the bound of its sessions). */
  maxStreamsPerOwner: number;
  /** A stream's lifetime (MCP_LISTEN_STREAM_MAX_S): then it ends and its client listens again. */
  lifetimeMs: number;
  /** Cloud's fair shares of MCP_MAX_LISTEN_STREAMS between plans (core/fair-shares.ts). */
  shares?: FairShareBounds;
  now?: () => number;
}

/** A JSON-RPC `subscriptions/listen` request, as the HTTP layer parsed it. */
export interface ListenMessage {
  jsonrpc: '2.0';
  id: string | number;
  method: 'subscriptions/listen';
  params?: unknown;
}

export function isListenRequest(body: unknown): body is ListenMessage {
  if (typeof body !== 'object' || body === null) return false;
  const message = body as Record<string, unknown>;
  return message.method === 'subscriptions/listen' && (typeof message.id === 'string' || typeof message.id === 'number');
}

/** An admitted (or refused) listen request. */
export interface ListenAdmission {
  /**
   * The answer: the refusal, or what `forward` (the MCP handler's fetch) answers, given a request
   * whose signal also aborts at the stream's lifetime (the SDK then ends the stream).
   */
  answer(request: Request, forward: (request: Request) => Promise<Response>): Promise<Response>;
  /**
   * Lets go of the stream's slot and feed watches: the caller calls it once the answer is written
   * to its end or the client is gone, however that happened (idempotent).
   */
  release(): void;
}

/** The URIs of the listen filter's resourceSubscriptions, each once; malformed params are the SDK's to refuse. */
function resourceUrisOf(message: ListenMessage): string[] {
  const notifications = (message.params as { notifications?: { resourceSubscriptions?: unknown } } | undefined)?.notifications;
  const uris = notifications?.resourceSubscriptions;
  if (!Array.isArray(uris)) return [];
  return [...new Set(uris.filter((uri): uri is string => typeof uri === 'string'))];
}

/**
 * The SDK answers its own listen refusals in-band (a JSON-RPC error, HTTP 200, before the stream's
 * acknowledgement) but has no hook to refuse one for a reason of ours: this writes that same answer.
 */
const refusal = (message: ListenMessage, error: Refusal): ListenAdmission => ({
  answer: async () => Response.json({ jsonrpc: '2.0', id: message.id, error }),
  release: () => undefined,
});

/**
 * MCP 2026-07-28 `subscriptions/listen` for invoices, in front of the SDK's listen router: the
 * router owns the stream (acknowledgement, filtering, subscription ids) and hears changes from the
 * bus, but shows its bus no stream's filter and no caller. So each listen request is admitted here
 * first, with the caller known: every `invoice://` URI it names must be an invoice the caller can
 * read (else the answer an unknown resource gets, so another merchant's invoice cannot even be
 * told to exist), the stream count per owner and the URIs per stream are bounded, and the feed is
 * watched for exactly the invoices of open streams, until they close or reach their lifetime.
 */
export function createInvoiceListen(options: InvoiceListenOptions) {
  const maxInvoicesPerStream = options.maxInvoicesPerStream ?? MAX_SUBSCRIPTIONS;
  const changes = createInvoiceChanges(options.bus);
  const streams = createListenStreams({ maxPerOwner: options.maxStreamsPerOwner, lifetimeMs: options.lifetimeMs, shares: options.shares, now: options.now });

  async function readAll(caller: ListenCaller, invoiceIds: string[]): Promise<ListenedInvoice[] | Refusal> {
    const reads = await Promise.all(invoiceIds.map((invoiceId) => caller.listener.getInvoice(invoiceId)));
    const listened: ListenedInvoice[] = [];
    for (const read of reads) {
      if (!read.ok) return unreadable(read.failure);
      listened.push({ invoiceId: read.value.invoice_id, status: read.value.status });
    }
    return listened;
  }

  function admitted(slot: ListenStreamSlot, letGo: () => void): ListenAdmission {
    let held = true;
    const release = () => {
      if (!held) return;
      held = false;
      letGo();
      slot.close();
    };
    return {
      answer: (request, forward) => forward(new Request(request, { signal: AbortSignal.any([request.signal, slot.signal]) })),
      release,
    };
  }

  return {
    /**
     * Admits `caller`'s listen request or refuses it: in-band like the SDK's own refusals, or, past
     * the owner's stream cap, by throwing `too_many_sessions` (429, before anything is written).
     */
    async admit(caller: ListenCaller, message: ListenMessage): Promise<ListenAdmission> {
      const uris = resourceUrisOf(message);
      if (uris.length > maxInvoicesPerStream) {
        return refusal(message, { code: INVALID_PARAMS, message: `At most ${maxInvoicesPerStream} resource subscriptions per listen stream; listen again with fewer (leave out settled invoices), or open another stream.` });
      }
      const invoiceIds = uris.filter((uri) => uri.startsWith(INVOICE_URI_PREFIX)).map((uri) => uri.slice(INVOICE_URI_PREFIX.length));
      const slot = streams.open(caller.owner, caller.tier);
      let read: Awaited<ReturnType<typeof readAll>>;
      try {
        read = invoiceIds.includes('') ? { code: INVALID_PARAMS, message: `Not an invoice resource: ${INVOICE_URI_PREFIX} (expected invoice://<invoice_id>).` } : await readAll(caller, invoiceIds);
      } catch (error) {
        slot.close();
        throw error;
      }
      if (!Array.isArray(read)) {
        slot.close();
        return refusal(message, read);
      }
      return admitted(slot, changes.hold(caller.updates, read));
    },
    /** Listen streams open now. */
    get openStreams(): number {
      return streams.size;
    },
    /** Invoices whose status feed is watched now. */
    get watchedInvoices(): number {
      return changes.watchedInvoices;
    },
    /** Ends every open stream (shutdown; the handler's own close ends them gracefully first). */
    close(): void {
      streams.close();
    },
  };
}

export type InvoiceListen = ReturnType<typeof createInvoiceListen>;
