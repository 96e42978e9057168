import { AmountError, unitsToDecimal, usdTextToUnits } from '../../core/invoices/token-amount.ts';
import { defaultChains } from '../../core/chains/default-chains.ts';
import { chainNamed } from '../../core/invoices/chain-module.ts';
import { chainFacts, type ChainName } from '../../shared/chains.ts';
import type { CheckoutView } from '../../shared/index.ts';
import type { SandboxPaymentChoice } from '../../core/invoices/sandbox-payment.ts';
import { readEnvironment } from '../../edge/environment.ts';
import { DEFAULT_SANDBOX_CHAIN_PORT, runningSandbox } from '../../sandbox/sandbox-state.ts';
import { USAGE_EXIT_CODE, type Command } from './command.ts';
import { requestOrExplain } from './unreachable.ts';

const START_HINT = 'is the sandbox running (`npm start` with no merchant key, or `npx service start --cloud` with no settings)?';

/**
 * Where the running sandbox is: SANDBOX_CHAIN_PORT when set (not 0), else the state file of the
 * sandbox running in this directory, else the defaults; the API at `--url` when given.
 */
function sandboxTarget(urlFlag: string | undefined): { api: string; chain: string } {
  const env = readEnvironment(process.env);
  const state = runningSandbox();
  const port = env.SANDBOX_CHAIN_PORT?.trim();
  const chain = port && port !== '0' ? `http://127.0.0.1:${port}` : (state?.chain_url ?? `http://127.0.0.1:${DEFAULT_SANDBOX_CHAIN_PORT}`);
  const api = urlFlag?.replace(/\/+$/, '') ?? state?.api_url ?? `http://127.0.0.1:${env.PORT || 8787}`;
  return { api, chain };
}

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

async function control(chainUrl: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await requestOrExplain(`${chainUrl}/control/${path}`, { method: 'POST', json: body }, 'sandbox chain', START_HINT);
  if (!res.ok) throw new ControlError(res.status, `the sandbox chain refused: ${res.body}`);
  return JSON.parse(res.body);
}

/** Pays the invoice of `view` from the sandbox, as its chain asks: 1 (and why on stderr) when it cannot. */
async function payFromSandbox(chainUrl: string, view: CheckoutView, choice: SandboxPaymentChoice): Promise<number> {
  const payment = chainNamed(defaultChains, view.chain).sandboxPayment(view, choice);
  if ('refused' in payment) {
    process.stderr.write(`${payment.refused}\n`);
    return 1;
  }
  process.stdout.write(`${payment.paid(await control(chainUrl, payment.action, payment.body))}\n`);
  return 0;
}

export const payCommand: Command = {
  name: 'pay',
  usage: `
Usage: service pay <invoice_id> [amount] [--amount AMOUNT] [--lightning] [--url API_URL]

Pays the invoice on the sandbox chain from the sandbox wallet, the listener's or the Cloud
sandbox's (run it in the directory the sandbox runs in: it finds it by ./data/sandbox.json). The
amount defaults to what the invoice still asks: sats for a Bitcoin invoice, USD with up to 6
decimals (test USDC or USDT) for a Base invoice. A fixed-address invoice is matched by its exact
amount: pay another (--amount 12.34 for a 12.340417 invoice) to see the payment.orphan webhook.
Then run "service mine" to confirm it.

A Bitcoin invoice with a lightning_invoice is paid over Lightning with --lightning (by default
when it takes Lightning only): the sandbox's simulated wallet settles the BOLT11 and tells the
listener at once, with no mining; it prints the payment hash and the preimage.

  --amount AMOUNT   the amount to send instead of the invoice's (same as the second argument)
  --lightning       pay the invoice's BOLT11 from the simulated Lightning wallet (Bitcoin only)
  --url API_URL     where to read the invoice: the listener (http://127.0.0.1:8787) or Cloud's
                    API (http://127.0.0.1:8788/api/v1); default: the running sandbox's

Settings: SANDBOX_CHAIN_PORT (where the sandbox chain listens), PORT (the listener's port when no
sandbox state file is found).`,
  options: { url: { type: 'string' }, amount: { type: 'string' }, lightning: { type: 'boolean' } },
  settings: ['PORT', 'SANDBOX_CHAIN_PORT'],
  async run({ values, positionals }) {
    const [invoiceId, positionalAmount] = positionals;
    if (!invoiceId) {
      process.stderr.write('Usage: service pay <invoice_id> [amount] [--amount AMOUNT] [--lightning] [--url API_URL]\n');
      return USAGE_EXIT_CODE;
    }
    const amount = (values.amount as string | undefined) ?? positionalAmount;
    const { api, chain } = sandboxTarget(values.url as string | undefined);
    const res = await requestOrExplain(`${api}/checkout/${encodeURIComponent(invoiceId)}`, {}, 'sandbox', START_HINT);
    if (!res.ok) {
      process.stderr.write(`Invoice ${invoiceId} not found at ${api} (HTTP ${res.status})\n`);
      return 1;
    }
    const view = JSON.parse(res.body) as CheckoutView;
    if (amount === undefined && !/[1-9]/.test(view.amount_due)) {
      process.stderr.write(`Invoice ${invoiceId} is ${view.status} and asks for nothing more; give an amount to send one anyway.\n`);
      return 1;
    }
    return payFromSandbox(chain, view, { amount, lightning: values.lightning === true });
  },
};

export const mineCommand: Command = {
  name: 'mine',
  usage: `
Usage: service mine [n]

Mines n blocks (default 1) on the sandbox regtest chain, confirming what is in its mempool, and n
blocks on each sandbox EVM node, adding confirmations to Base and Ethereum payments. Run it in the directory the
sandbox runs in (it finds it by ./data/sandbox.json), or set SANDBOX_CHAIN_PORT.`,
  settings: ['SANDBOX_CHAIN_PORT'],
  async run({ positionals }) {
    const n = positionals[0] ?? '1';
    if (!/^[1-9]\d{0,3}$/.test(n)) {
      process.stderr.write('Usage: service mine [n]  (1-9999)\n');
      return USAGE_EXIT_CODE;
    }
    const { chain } = sandboxTarget(undefined);
    const { height } = await control(chain, 'mine', { blocks: Number(n) });
    let line = `mined ${n} block(s); height ${height}`;
    try {
      const evm = (await control(chain, 'evm/mine', { blocks: Number(n) })) as { heights: Record<string, number> };
      for (const [name, height] of Object.entries(evm.heights)) line += `; ${chainFacts[name as ChainName]?.name ?? name} sandbox height ${height}`;
    } catch (error) {
      // 404: this sandbox runs without EVM nodes.
      if (!(error instanceof ControlError) || error.status !== 404) throw error;
    }
    process.stdout.write(`${line}\n`);
    return 0;
  },
};

export const fundCommand: Command = {
  name: 'fund',
  usage: `
Usage: service fund <address> [amount_usd]

Sends amount_usd (default 100, USD with up to 6 decimals, as \`pay\` takes) of sandbox USDC to the
EVM address on every sandbox EVM node (Base, Ethereum, Polygon), from the sandbox wallet. The
wallet needs no gas: x402 payments are EIP-3009 authorizations the sandbox settles itself. Run it
in the directory the sandbox runs in (it finds it by ./data/sandbox.json), or set SANDBOX_CHAIN_PORT.`,
  settings: ['SANDBOX_CHAIN_PORT'],
  async run({ positionals }) {
    const [address, amount = '100'] = positionals;
    if (!address || !/^0x[0-9a-fA-F]{40}$/.test(address)) {
      process.stderr.write('Usage: service fund <address> [amount_usd]  (address: 0x and 40 hex digits)\n');
      return USAGE_EXIT_CODE;
    }
    let units: bigint;
    try {
      units = usdTextToUnits(amount);
    } catch (error) {
      if (!(error instanceof AmountError)) throw error;
      process.stderr.write(`amount_usd is USD with at most 6 decimals: ${error.message}\n`);
      return USAGE_EXIT_CODE;
    }
    const { chain } = sandboxTarget(undefined);
    try {
      const { funded, usdc, networks } = (await control(chain, 'evm/fund', { address, units: units.toString() })) as {
        funded: Record<string, string>;
        usdc: Record<string, string>;
        networks: Record<string, string>;
      };
      for (const [name, txHash] of Object.entries(funded)) {
        process.stdout.write(`funded ${address} with ${unitsToDecimal(units)} USDC on the ${chainFacts[name as ChainName]?.name ?? name} sandbox (token ${usdc[name]}); tx_hash ${txHash}\n`);
      }
      // The sandbox tokens are not among an x402 client's default ones: the agent allows them (docs/agents.md).
      process.stdout.write(`spend controls: ${Object.keys(funded).map((name) => `${networks[name]}/${usdc[name]}`).join(',')}\n`);
    } catch (error) {
      if (!(error instanceof ControlError) || error.status !== 404) throw error;
      process.stderr.write('This sandbox runs without EVM nodes (anvil is not installed).\n');
      return 1;
    }
    return 0;
  },
};
