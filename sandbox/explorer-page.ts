import { chainFacts } from '../shared/index.ts';
import * as bitcoin from 'bitcoinjs-lib';
import { unitsToDecimal } from '../core/invoices/token-amount.ts';
import { escapeHtml } from '../edge/checkout/page.ts';
import type { KnownTx } from './esplora-api.ts';
import type { LocalBtcChain } from './local-btc-chain.ts';
import type { LocalEvm } from './local-evm.ts';

/** ERC-20 Transfer(address,address,uint256). */
const TRANSFER_TOPIC = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

export interface ExplorerReply {
  status: number;
  html: string;
}

interface Row {
  tx: string;
  amount: string;
  state: string;
}

function page(title: string, intro: string, rows: Row[]): string {
  const body = rows.length
    ? `<table><tr><th>Transaction</th><th>Amount</th><th>State</th></tr>\n${rows
        .map((r) => `<tr><td><a href="../tx/${escapeHtml(r.tx)}"><code>${escapeHtml(r.tx)}</code></a></td><td>${escapeHtml(r.amount)}</td><td>${escapeHtml(r.state)}</td></tr>`)
        .join('\n')}</table>`
    : '<p>No transaction yet.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · sandbox explorer</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td,th{padding:.3rem .6rem;text-align:left}code{word-break:break-all}</style></head>
<body><p><strong>SANDBOX</strong>: a local test chain with worthless coins, not a public network.</p>
<h1>${escapeHtml(title)}</h1>
<p>${intro}</p>
${body}
</body></html>
`;
}

const notFound = (what: string): ExplorerReply => ({ status: 404, html: page('Not found', `${escapeHtml(what)} is not known to this sandbox.`, []) });

function btcState(chain: LocalBtcChain, known: KnownTx): string {
  return known.height === null ? 'in the mempool (unconfirmed)' : `${chain.tip.height - known.height + 1} confirmation(s), block ${known.height}`;
}

function btcAddress(chain: LocalBtcChain, address: string): ExplorerReply {
  let script: Uint8Array;
  try {
    script = bitcoin.address.toOutputScript(address, chain.network);
  } catch {
    return notFound(address);
  }
  const history = chain.scriptHistory(script);
  const rows = [...history.mempool, ...history.confirmed].map((known) => {
    const received = known.tx.outs.filter((out) => Buffer.from(out.script).equals(Buffer.from(script))).reduce((sum, out) => sum + BigInt(out.value), 0n);
    return { tx: known.txid, amount: `${received} sats received`, state: btcState(chain, known) };
  });
  return { status: 200, html: page(`Address ${address}`, 'Bitcoin (local regtest chain)', rows) };
}

function btcTx(chain: LocalBtcChain, txid: string): ExplorerReply {
  const known = chain.tx(txid);
  if (!known) return notFound(txid);
  const rows = known.tx.outs.map((out) => {
    let to: string;
    try {
      to = bitcoin.address.fromOutputScript(out.script, chain.network);
    } catch {
      to = 'script';
    }
    return { tx: known.txid, amount: `${out.value} sats to ${to}`, state: btcState(chain, known) };
  });
  return { status: 200, html: page(`Transaction ${txid}`, 'Bitcoin (local regtest chain)', rows) };
}

interface Log {
  address: string;
  transactionHash: string;
  blockNumber: string;
  data: string;
  topics: string[];
}

/** The sandbox's test tokens by contract address (lowercase, as logs carry it) → symbol. */
function tokenSymbols(evm: LocalEvm): Map<string, string> {
  return new Map(Object.entries(evm.tokens).map(([symbol, token]) => [token.address.toLowerCase(), symbol.toUpperCase()]));
}

async function evmRows(evm: LocalEvm, logs: Log[]): Promise<Row[]> {
  const tip = await evm.anvil.provider.getBlockNumber();
  const symbols = tokenSymbols(evm);
  return logs.map((log) => ({
    tx: log.transactionHash,
    amount: `${unitsToDecimal(BigInt(log.data))} test ${symbols.get(log.address.toLowerCase()) ?? 'token'} to 0x${log.topics[2]!.slice(26)}`,
    state: `${tip - Number(log.blockNumber) + 1} confirmation(s), block ${Number(log.blockNumber)}`,
  }));
}

const localChain = (evm: LocalEvm) => `Test USDC and USDT on the local test chain (id ${evm.anvil.chainId}), not ${chainFacts[evm.chain].name}`;

async function evmAddress(evms: LocalEvm[], address: string): Promise<ExplorerReply> {
  const recipient = `0x${address.slice(2).toLowerCase().padStart(64, '0')}`;
  const sections: { evm: LocalEvm; rows: Row[] }[] = [];
  for (const evm of evms) {
    const tokens = Object.values(evm.tokens).map((token) => token.address);
    const logs = await evm.anvil.rpc<Log[]>('eth_getLogs', [{ address: tokens, fromBlock: '0x0', toBlock: 'latest', topics: [TRANSFER_TOPIC, null, recipient] }]);
    sections.push({ evm, rows: await evmRows(evm, logs.reverse()) });
  }
  // An address is the same on every EVM chain: show the chains it received on (the first when none).
  const shown = sections.filter((section) => section.rows.length > 0);
  const { evm, rows } = shown.length === 1 ? shown[0]! : { evm: (shown[0] ?? sections[0]!).evm, rows: shown.flatMap((section) => section.rows) };
  return { status: 200, html: page(`Address ${address}`, localChain(evm), rows) };
}

async function evmTx(evms: LocalEvm[], hash: string): Promise<ExplorerReply> {
  for (const evm of evms) {
    const receipt = await evm.anvil.rpc<{ logs: Log[] } | null>('eth_getTransactionReceipt', [hash]);
    if (!receipt) continue;
    const transfers = receipt.logs.filter((log) => log.topics[0] === TRANSFER_TOPIC);
    return { status: 200, html: page(`Transaction ${hash}`, localChain(evm), await evmRows(evm, transfers)) };
  }
  return notFound(hash);
}

/**
 * The sandbox's block explorer: `/explorer/address/<address>` and `/explorer/tx/<id>` as HTML pages
 * a person can read, so an invoice's `verify_url` and `tx_url` open something useful. Bitcoin ids
 * are read from the regtest chain, 0x ones from the local EVM nodes' test USDC and USDT transfers.
 */
export function sandboxExplorer(chain: LocalBtcChain, evms: LocalEvm[]) {
  return async (path: string): Promise<ExplorerReply> => {
    const [kind, id = '', ...rest] = path.split('/').filter(Boolean);
    if (rest.length > 0 || !id) return notFound(path);
    const evmId = /^0x[0-9a-fA-F]+$/.test(id);
    if (evmId && evms.length === 0) return notFound(id);
    if (kind === 'address') {
      if (evmId) return /^0x[0-9a-fA-F]{40}$/.test(id) ? evmAddress(evms, id) : notFound(id);
      return btcAddress(chain, id);
    }
    if (kind === 'tx') {
      if (evmId) return /^0x[0-9a-fA-F]{64}$/.test(id) ? evmTx(evms, id) : notFound(id);
      return /^[0-9a-f]{64}$/.test(id) ? btcTx(chain, id) : notFound(id);
    }
    return notFound(path);
  };
}
