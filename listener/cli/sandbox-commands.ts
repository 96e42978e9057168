import { AmountError, unitsToDecimal, usdTextToUnits } from '../../core/base/amount.ts';
import { readEnvironment } from '../config.ts';
import { sandboxChainUrl } from '../sandbox/sandbox.ts';
import type { Command } from './command.ts';

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function control(path: string, body: unknown): Promise<Record<string, unknown>> {
  const url = `${sandboxChainUrl(readEnvironment(process.env))}/control/${path}`;
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch {
    throw new ControlError(0, `No sandbox chain at ${url}. Start the sandbox first: npm start (with no merchant key set).`);
  }
  const text = await res.text();
  if (!res.ok) throw new ControlError(res.status, `sandbox chain refused: ${text}`);
  return JSON.parse(text);
}

interface InvoiceForPay {
  chain?: string;
  receive_address?: string;
  child_index?: number | null;
  network?: string;
  amount_sats?: number;
  amount_usdc_units?: number;
}

async function payBtc(invoice: InvoiceForPay, amount: string | undefined): Promise<number> {
  if (amount !== undefined && !/^[1-9]\d*$/.test(amount)) {
    process.stderr.write('The amount of a Bitcoin invoice is in sats: a positive integer.\n');
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
}

async function payBase(invoice: InvoiceForPay, amount: string | undefined): Promise<number> {
  let units: bigint;
  try {
    units = amount === undefined ? BigInt(invoice.amount_usdc_units ?? 0) : usdTextToUnits(amount);
  } catch (error) {
    if (!(error instanceof AmountError)) throw error;
    process.stderr.write(`The amount of a Base invoice is in USD (USDC), at most 6 decimals: ${error.message}\n`);
    return 1;
  }
  if (invoice.child_index === null || invoice.child_index === undefined) {
    process.stderr.write('That invoice is not one of the sandbox\'s (it has no derived address); pay it from a real wallet.\n');
    return 1;
  }
  // The sandbox checks the address is its own merchant key's child before it sends anything.
  const paid = await control('base/pay', { address: invoice.receive_address, child_index: invoice.child_index, units: units.toString() });
  process.stdout.write(`paid ${unitsToDecimal(units)} USDC to ${invoice.receive_address}\ntx_hash ${paid.tx_hash}\n`);
  return 0;
}

export const payCommand: Command = {
  name: 'pay',
  summary: 'Sandbox only: pay an invoice from the sandbox wallet (regtest coins or test USDC)',
  usage: `
Usage: service pay <invoice_id> [amount] [--url LISTENER_URL]

Pays the invoice on the sandbox chain from the sandbox wallet. amount defaults to the invoice
amount: sats for a Bitcoin invoice, USD with up to 6 decimals (test USDC) for a Base invoice.
Then run "service mine" to confirm it.`,
  options: { url: { type: 'string' } },
  async run({ values, positionals }) {
    const [invoiceId, amount] = positionals;
    if (!invoiceId) {
      process.stderr.write('Usage: service pay <invoice_id> [amount]\n');
      return 1;
    }
    const listener = (values.url as string | undefined) ?? `http://127.0.0.1:${process.env.PORT || 8787}`;
    const res = await fetch(`${listener}/invoice/${encodeURIComponent(invoiceId)}`);
    const invoice = (await res.json()) as InvoiceForPay;
    if (!res.ok || !invoice.receive_address) {
      process.stderr.write(`Invoice ${invoiceId} not found at ${listener}\n`);
      return 1;
    }
    return invoice.chain === 'base' ? payBase(invoice, amount) : payBtc(invoice, amount);
  },
};

export const mineCommand: Command = {
  name: 'mine',
  summary: 'Sandbox only: mine blocks on the sandbox chains',
  usage: `
Usage: service mine [n]

Mines n blocks (default 1) on the sandbox regtest chain, confirming what is in its mempool, and n
blocks on the sandbox EVM node, adding confirmations to Base payments.`,
  async run({ positionals }) {
    const n = positionals[0] ?? '1';
    if (!/^[1-9]\d{0,3}$/.test(n)) {
      process.stderr.write('Usage: service mine [n]  (1-9999)\n');
      return 1;
    }
    const { height } = await control('mine', { blocks: Number(n) });
    let line = `mined ${n} block(s); height ${height}`;
    try {
      const evm = await control('base/mine', { blocks: Number(n) });
      line += `; Base sandbox height ${evm.height}`;
    } catch (error) {
      // 404: this sandbox runs without a Base node.
      if (!(error instanceof ControlError) || error.status !== 404) throw error;
    }
    process.stdout.write(`${line}\n`);
    return 0;
  },
};
