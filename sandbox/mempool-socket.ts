import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import * as bitcoin from 'bitcoinjs-lib';
import { WebSocket, WebSocketServer } from 'ws';
import { blockJson, txJson, type ChainBlock, type ChainEvent, type EsploraChain, type KnownTx } from './esplora-api.ts';

export interface MempoolSocketOptions {
  /**
   * Addresses one connection may track with `track-addresses`. mempool.space does not publish its
   * public limit; its backend's sample config sets MAX_TRACKED_ADDRESSES to 100, so that is the default.
   */
  maxTrackedAddresses?: number;
  /** Blocks sent when a client starts wanting `blocks` (mempool's INITIAL_BLOCKS_AMOUNT, 8 by default). */
  initialBlocks?: number;
}

export interface MempoolSocket {
  /** Takes over an HTTP upgrade request for the socket path. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  readonly clientCount: number;
  /** Messages and bytes pushed to clients so far. */
  readonly sent: { messages: number; bytes: number };
  /** Cuts every open connection, as a server restart or a network drop would. */
  dropAll(): void;
  close(): void;
}

interface ClientState {
  wantsBlocks: boolean;
  /** `track-address`: the one address, canonical form. */
  address: string | null;
  /** `track-addresses`: the address as the client gave it, keyed by its canonical form. */
  addresses: Map<string, string> | null;
  messageTimes: number[];
}

// mempool's websocket-handler closes a client sending more than 100 messages in 10 s.
const MESSAGE_RATE_LIMIT = 100;
const MESSAGE_RATE_WINDOW_MS = 10_000;
// mempool's testAddress: base58, bech32(m) in either case, and raw public keys (P2PK).
const ADDRESS_FORMAT =
  /^([a-km-zA-HJ-NP-Z1-9]{26,35}|[a-km-zA-HJ-NP-Z1-9]{80}|[a-z]{2,5}1[ac-hj-np-z02-9]{8,100}|[A-Z]{2,5}1[AC-HJ-NP-Z02-9]{8,100}|04[a-fA-F0-9]{128}|(02|03)[a-fA-F0-9]{64})$/;

/**
 * The mempool.space WebSocket API (`/api/v1/ws`) over a chain, in the message shapes of mempool's
 * backend/src/api/websocket-handler.ts: `{"action":"want","data":["blocks"]}` answers `blocks` then
 * pushes `block` for each new block; `track-address` pushes `address-transactions` (mempool) and
 * `block-transactions` (confirmed); `track-addresses` pushes `multi-address-transactions` keyed by
 * address, `{ mempool, confirmed, removed }`, and answers `track-addresses-error` over the limit.
 */
export function createMempoolSocket(chain: EsploraChain, options: MempoolSocketOptions = {}): MempoolSocket {
  const maxTracked = options.maxTrackedAddresses ?? 100;
  const initialBlocks = options.initialBlocks ?? 8;
  const server = new WebSocketServer({ noServer: true });
  const clients = new Map<WebSocket, ClientState>();
  const sent = { messages: 0, bytes: 0 };

  const send = (client: WebSocket, response: Record<string, unknown>) => {
    if (!Object.keys(response).length || client.readyState !== WebSocket.OPEN) return;
    const data = JSON.stringify(response);
    sent.messages++;
    sent.bytes += Buffer.byteLength(data);
    client.send(data);
  };

  const recentBlocks = () => recentBlocksJson(chain, initialBlocks);

  function onMessage(client: WebSocket, state: ClientState, data: string): void {
    if (overRateLimit(state, Date.now())) return client.close();
    let message: Record<string, unknown>;
    try {
      message = JSON.parse(data) as Record<string, unknown>;
    } catch {
      return client.close(); // as mempool does with an unparsable message
    }
    if (message === null || typeof message !== 'object') return client.close();
    send(client, answerOf(message, state, { maxTracked, recentBlocks }));
  }

  server.on('connection', (client: WebSocket) => {
    const state: ClientState = { wantsBlocks: false, address: null, addresses: null, messageTimes: [] };
    clients.set(client, state);
    client.on('message', (data) => onMessage(client, state, data.toString()));
    client.on('close', () => clients.delete(client));
    client.on('error', () => clients.delete(client));
  });

  function onChainEvent(event: ChainEvent): void {
    if (!clients.size) return;
    const txs = event.type === 'mempool' ? [event.tx] : event.block.txids.map((txid) => chain.tx(txid)!);
    const byAddress = [...clients.values()].some((state) => state.address || state.addresses) ? addressIndex(chain, txs) : new Map<string, KnownTx[]>();
    const block = event.type === 'block' ? socketBlockJson(chain, event.block) : null;
    for (const [client, state] of clients) send(client, eventMessageFor(chain, event, state, block, byAddress));
  }
  const unsubscribe = chain.subscribe(onChainEvent);

  return {
    handleUpgrade(req, socket, head) {
      server.handleUpgrade(req, socket, head, (client) => server.emit('connection', client, req));
    },
    get clientCount() {
      return clients.size;
    },
    sent,
    dropAll() {
      for (const client of clients.keys()) client.terminate();
      clients.clear();
    },
    close() {
      unsubscribe();
      for (const client of clients.keys()) client.terminate();
      clients.clear();
      server.close();
    },
  };
}

/** Notes a message's time; true once the client sent more than mempool's limit within its window. */
function overRateLimit(state: ClientState, now: number): boolean {
  state.messageTimes.push(now);
  while (state.messageTimes.length && state.messageTimes[0] <= now - MESSAGE_RATE_WINDOW_MS) state.messageTimes.shift();
  return state.messageTimes.length > MESSAGE_RATE_LIMIT;
}

/** Takes a client's message into its state; the answer (empty: none). */
function answerOf(message: Record<string, unknown>, state: ClientState, ctx: { maxTracked: number; recentBlocks: () => unknown[] }): Record<string, unknown> {
  const response: Record<string, unknown> = {};
  if (message.action === 'want' && Array.isArray(message.data)) {
    const wants = message.data.includes('blocks');
    if (wants && !state.wantsBlocks) response.blocks = ctx.recentBlocks();
    state.wantsBlocks = wants;
  }
  if (message.action === 'init' || message['refresh-blocks']) response.blocks = ctx.recentBlocks();
  if (message.action === 'ping') response.pong = true;
  if (message['track-address']) state.address = canonicalAddress(message['track-address']);
  if (Array.isArray(message['track-addresses'])) {
    const addresses = new Map<string, string>();
    for (const given of message['track-addresses']) {
      const canonical = canonicalAddress(given);
      if (canonical) addresses.set(canonical, String(given));
    }
    if (addresses.size > ctx.maxTracked) {
      response['track-addresses-error'] =
        `too many addresses requested, this connection supports tracking a maximum of ${ctx.maxTracked} addresses`;
      state.addresses = null;
    } else state.addresses = addresses.size ? addresses : null;
  }
  return response;
}

/** What one client is pushed for a chain event, by what it wants and tracks (empty: nothing). */
function eventMessageFor(chain: EsploraChain, event: ChainEvent, state: ClientState, block: unknown, byAddress: Map<string, KnownTx[]>): Record<string, unknown> {
  const response: Record<string, unknown> = {};
  if (block && state.wantsBlocks) response.block = block;
  const single = state.address ? byAddress.get(state.address) : undefined;
  if (single) response[event.type === 'mempool' ? 'address-transactions' : 'block-transactions'] = single.map((k) => txJson(chain, k));
  if (state.addresses) {
    const changes: Record<string, { mempool: unknown[]; confirmed: unknown[]; removed: unknown[] }> = {};
    for (const [canonical, given] of state.addresses) {
      const found = byAddress.get(canonical)?.map((k) => txJson(chain, k));
      if (found) changes[given] = event.type === 'mempool' ? { mempool: found, confirmed: [], removed: [] } : { mempool: [], confirmed: found, removed: [] };
    }
    if (Object.keys(changes).length) response['multi-address-transactions'] = changes;
  }
  return response;
}

/** The last `count` blocks up to the tip, as the `blocks` message carries them. */
function recentBlocksJson(chain: EsploraChain, count: number): unknown[] {
  const blocks: unknown[] = [];
  for (let height = Math.max(0, chain.tip.height - count + 1); height <= chain.tip.height; height++) {
    const block = chain.blockAt(height);
    if (block) blocks.push(socketBlockJson(chain, block));
  }
  return blocks;
}

/** mempool's canonical form: bech32 lowercased, base58 as given; null for anything else. */
function canonicalAddress(given: unknown): string | null {
  if (typeof given !== 'string' || !ADDRESS_FORMAT.test(given)) return null;
  return /^[A-Z]{2,5}1/.test(given) ? given.toLowerCase() : given;
}

/** Transactions by every address they pay or spend from, as mempool's makeAddressCache builds it. */
function addressIndex(chain: EsploraChain, txs: KnownTx[]): Map<string, KnownTx[]> {
  const index = new Map<string, KnownTx[]>();
  const add = (script: Uint8Array, known: KnownTx) => {
    let address: string;
    try {
      address = bitcoin.address.fromOutputScript(script, chain.network);
    } catch {
      return; // no address form (OP_RETURN, bare multisig)
    }
    const list = index.get(address) ?? [];
    if (list[list.length - 1] !== known) list.push(known);
    index.set(address, list);
  };
  for (const known of txs) {
    if (!known.tx.isCoinbase()) {
      for (const input of known.tx.ins) {
        const prev = chain.tx(Buffer.from(input.hash).reverse().toString('hex'))?.tx.outs[input.index];
        if (prev) add(prev.script, known);
      }
    }
    for (const out of known.tx.outs) add(out.script, known);
  }
  return index;
}

/** A block as mempool's `block` and `blocks` messages carry it: Esplora's block fields, `stale`, and a subset of `extras`. */
function socketBlockJson(chain: EsploraChain, block: ChainBlock) {
  const { in_best_chain: inBest, ...fields } = blockJson(chain, block);
  const coinbase = block.block.transactions?.[0];
  return {
    ...fields,
    stale: !inBest,
    extras: { reward: coinbase ? Number(coinbase.outs.reduce((sum, out) => sum + out.value, 0n)) : 0 },
  };
}
