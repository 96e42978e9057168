import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { headerHash, mineHeader } from './headers.ts';
import { writeFlood, type Flood } from './flood.ts';

/** What a lie may replace an honest answer with: the body (and its status), a flood (flood.ts), or null to pass it on. */
export type Lie = (path: string, honest: () => Promise<{ status: number; body: Buffer }>) => Promise<{ status: number; body: Buffer } | { flood: Flood } | null>;

export interface LyingEsplora {
  /** Its Esplora base URL, as BTC_ESPLORA_URL takes it. */
  readonly url: string;
  /** The honest Esplora it relays (set once known); unset, it answers 503. */
  target: string | null;
  /** Rewrites answers; null: an honest relay. */
  lie: Lie | null;
  /** Requests it received so far. */
  readonly requests: number;
  /** Bytes written by floods, all requests together. */
  readonly floodedBytes: number;
  close(): Promise<void>;
}

/**
 * An Esplora in front of an honest one that lies on demand: what a compromised provider, a hijacked
 * DNS name or a buggy mirror would serve. Only GET is relayed (the listener only reads).
 */
export async function startLyingEsplora(): Promise<LyingEsplora> {
  let requests = 0;
  const server = createServer(async (req, res) => {
    requests++;
    const path = req.url!.replace(/^\/api/, '');
    const target = proxy.target;
    if (!target || req.method !== 'GET') {
      res.writeHead(503).end();
      return;
    }
    const honest = async () => {
      const answer = await fetch(`${target}${path}`);
      return { status: answer.status, body: Buffer.from(await answer.arrayBuffer()) };
    };
    try {
      const answer = (await proxy.lie?.(path, honest)) ?? (await honest());
      if ('flood' in answer) {
        let sent = 0;
        await writeFlood(res, answer.flood, (bytes) => (sent = bytes));
        floodedBytes += sent;
      } else res.writeHead(answer.status).end(answer.body);
    } catch {
      res.writeHead(502).end();
    }
  });
  let floodedBytes = 0;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const proxy: LyingEsplora = {
    url: `http://127.0.0.1:${port}/api`,
    target: null,
    lie: null,
    get requests() {
      return requests;
    },
    get floodedBytes() {
      return floodedBytes;
    },
    // A silent answer holds its connection open: close it too.
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
  return proxy;
}

/** A transaction as Esplora's JSON describes it (the fields a lie rewrites). */
export interface EsploraTxJson {
  txid: string;
  vout: Array<{ scriptpubkey: string; scriptpubkey_address?: string; value: number }>;
  status: { confirmed: boolean };
}

const ADDRESS_TXS = /^\/address\/([^/]+)\/txs(?:\/mempool|\/chain(?:\/[0-9a-f]{64})?)?$/;
const RAW_TX = /^\/tx\/([0-9a-f]{64})\/hex$/;

/** The first of `lies` that rewrites an answer does; none: the honest answer. */
export function lies(...all: Lie[]): Lie {
  return async (path, honest) => {
    for (const lie of all) {
      const answer = await lie(path, honest);
      if (answer) return answer;
    }
    return null;
  };
}

/**
 * A made-up branch of `depth` headers ending at height `tipHeight`, each with real (regtest) proof
 * of work and linking to the one below, the lowest to a parent nobody has: what a source claiming
 * a tip it cannot prove would serve. The lie answers its tip, `/block/:hash` for each of its
 * headers and `/blocks/:height` pages within it, as an Esplora on that branch would; the rest it
 * relays honestly.
 */
export function inventedBranch(tipHeight: number, depth: number, startTime: number): Lie {
  const byHash = new Map<string, Record<string, unknown>>();
  const byHeight = new Map<number, Record<string, unknown>>();
  let prevHash = randomBytes(32).toString('hex');
  for (let height = tipHeight - depth + 1; height <= tipHeight; height++) {
    const fields = { prevHash, time: startTime + height * 600, bits: 0x207fffff, merkleRoot: randomBytes(32).toString('hex') };
    const raw = mineHeader(fields);
    const id = headerHash(raw);
    const json = { id, height, version: raw.readInt32LE(0), timestamp: fields.time, merkle_root: fields.merkleRoot, previousblockhash: prevHash, nonce: raw.readUInt32LE(76), bits: fields.bits, tx_count: 1 };
    byHash.set(id, json);
    byHeight.set(height, json);
    prevHash = id;
  }
  const tip = prevHash;
  const body = (value: unknown) => ({ status: 200, body: Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)) });
  return async (path) => {
    if (path === '/blocks/tip/hash') return body(tip);
    if (path === '/blocks/tip/height') return body(String(tipHeight));
    const block = /^\/block\/([0-9a-f]{64})$/.exec(path);
    if (block) return byHash.has(block[1]) ? body(byHash.get(block[1])) : { status: 404, body: Buffer.from('Block not found') };
    const page = /^\/blocks\/(\d+)$/.exec(path);
    if (page && byHeight.has(Number(page[1]))) {
      const top = Number(page[1]);
      return body(Array.from({ length: 10 }, (_, i) => byHeight.get(top - i)).filter(Boolean));
    }
    return null;
  };
}

/** Rewrites the address routes' transactions (`/address/:a/txs…`): each through `edit`, null dropping it. */
export function editAddressTxs(edit: (tx: EsploraTxJson, address: string) => EsploraTxJson | null): Lie {
  return async (path, honest) => {
    const route = ADDRESS_TXS.exec(path);
    if (!route) return null;
    const answer = await honest();
    if (answer.status !== 200) return answer;
    const txs = (JSON.parse(answer.body.toString()) as EsploraTxJson[]).map((tx) => edit(tx, decodeURIComponent(route[1])));
    return { status: 200, body: Buffer.from(JSON.stringify(txs.filter((tx) => tx !== null))) };
  };
}

/** Rewrites `/tx/:txid/hex`: the honest bytes through `edit` (changed bytes no longer hash to the txid). */
export function editRawTx(edit: (raw: Buffer, txid: string) => Buffer): Lie {
  return async (path, honest) => {
    const route = RAW_TX.exec(path);
    if (!route) return null;
    const answer = await honest();
    if (answer.status !== 200) return answer;
    return { status: 200, body: Buffer.from(edit(Buffer.from(answer.body.toString().trim(), 'hex'), route[1]).toString('hex')) };
  };
}

/** Says nothing of the mempool: no unconfirmed transaction on any address, an empty mempool. */
export const silentAboutMempool: Lie = lies(
  editAddressTxs((tx) => (tx.status.confirmed ? tx : null)),
  async (path) => (path === '/mempool/txids' ? { status: 200, body: Buffer.from('[]') } : null),
);
