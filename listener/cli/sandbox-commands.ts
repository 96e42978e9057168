import { readEnvironment } from '../config.ts';
import { sandboxChainUrl } from '../sandbox/sandbox.ts';
import type { Command } from './command.ts';

async function control(path: string, body: unknown): Promise<Record<string, unknown>> {
  const url = `${sandboxChainUrl(readEnvironment(process.env))}/control/${path}`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch {
    throw new Error(`No sandbox chain at ${url}. Start the sandbox first: npm start (with no MERCHANT_BTC_XPUB set).`);
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`sandbox chain refused: ${text}`);
  return JSON.parse(text);
}

export const payCommand: Command = {
  name: 'pay',
  summary: 'Sandbox only: pay an invoice from the sandbox wallet (regtest coins)',
  usage: `
Usage: service pay <invoice_id> [amount_sats] [--url LISTENER_URL]

Sends amount_sats (default: the invoice amount) from the sandbox wallet to the invoice's address on
the sandbox regtest chain. Then run "service mine" to confirm it.`,
  options: { url: { type: 'string' } },
  async run({ values, positionals }) {
    const [invoiceId, amount] = positionals;
    if (!invoiceId || (amount !== undefined && !/^[1-9]\d*$/.test(amount))) {
      process.stderr.write('Usage: service pay <invoice_id> [amount_sats]\n');
      return 1;
    }
    const listener = (values.url as string | undefined) ?? `http://127.0.0.1:${process.env.PORT || 8787}`;
    const res = await fetch(`${listener}/invoice/${encodeURIComponent(invoiceId)}`);
    const invoice = (await res.json()) as { receive_address?: string; amount_sats?: number; network?: string };
    if (!res.ok || !invoice.receive_address) {
      process.stderr.write(`Invoice ${invoiceId} not found at ${listener}\n`);
      return 1;
    }
    if (invoice.network !== 'regtest') {
      process.stderr.write('That invoice is not on the sandbox regtest chain; pay it from a real wallet.\n');
      return 1;
    }
    const sats = amount ?? String(invoice.amount_sats);
    const { txid } = await control('pay', { address: invoice.receive_address, amount_sats: sats });
    process.stdout.write(`paid ${sats} sats to ${invoice.receive_address}\ntxid ${txid}\n`);
    return 0;
  },
};

export const mineCommand: Command = {
  name: 'mine',
  summary: 'Sandbox only: mine blocks on the sandbox regtest chain',
  usage: `
Usage: service mine [n]

Mines n blocks (default 1) on the sandbox chain, confirming what is in its mempool.`,
  async run({ positionals }) {
    const n = positionals[0] ?? '1';
    if (!/^[1-9]\d{0,3}$/.test(n)) {
      process.stderr.write('Usage: service mine [n]  (1-9999)\n');
      return 1;
    }
    const { height } = await control('mine', { blocks: Number(n) });
    process.stdout.write(`mined ${n} block(s); height ${height}\n`);
    return 0;
  },
};
