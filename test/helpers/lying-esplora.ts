import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What a lie may replace an honest answer with: the body (and its status), or null to pass it on. */
export type Lie = (path: string, honest: () => Promise<{ status: number; body: Buffer }>) => Promise<{ status: number; body: Buffer } | null>;

export interface LyingEsplora {
  /** Its Esplora base URL, as BTC_ESPLORA_URL takes it. */
  readonly url: string;
  /** The honest Esplora it relays (set once known); unset, it answers 503. */
  target: string | null;
  /** Rewrites answers; null: an honest relay. */
  lie: Lie | null;
  close(): Promise<void>;
}

/**
 * An Esplora in front of an honest one that lies on demand: what a compromised provider, a hijacked
 * DNS name or a buggy mirror would serve. Only GET is relayed (the listener only reads).
 */
export async function startLyingEsplora(): Promise<LyingEsplora> {
  const server = createServer(async (req, res) => {
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
      res.writeHead(answer.status).end(answer.body);
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const proxy: LyingEsplora = {
    url: `http://127.0.0.1:${port}/api`,
    target: null,
    lie: null,
    close: () => new Promise((resolve) => server.close(() => resolve())),
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
