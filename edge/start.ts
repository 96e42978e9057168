import { chainFacts, type ChainName } from '../shared/index.ts';
import { formatReceivedWebhook, type ReceivedWebhook } from '../core/webhooks/receiver.ts';
import { ConfigError, StartFailure } from './settings.ts';

/** What the banner's EVM lines read of a running sandbox (sandbox/sandbox.ts). */
export interface SandboxBase {
  evms: { chain: ChainName; usdcMode: 'xpub' | 'fixed-address'; anvil: { chainId: number }; fixedAddress: string }[];
  baseUnavailable: string | null;
}

/** On SIGTERM/SIGINT, how long requests under way and webhook attempts in flight get to finish. */
export const STOP_GRACE_MS = 10_000;

/**
 * SIGINT/SIGTERM, listened for from the first moment: `requested` resolves on the first one once
 * `started()` was called. One that comes while still starting (waiting for the database, say) ends
 * the process at once: nothing has been acknowledged yet.
 */
export function stopSignal(): { started(): void; requested: Promise<void> } {
  let running = false;
  let stop!: () => void;
  const requested = new Promise<void>((resolve) => (stop = resolve));
  const onSignal = () => (running ? stop() : process.exit(0));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { started: () => void (running = true), requested };
}

/**
 * A start that failed, failed whole: one line saying why (the setting to change, for a port that
 * cannot be bound or a refused setting), `cleanup` (a sandbox's local chains) for a few seconds at
 * most, then the process ends with status 1, whatever else the start had begun.
 */
export async function endFailedStart(error: unknown, cleanup?: () => Promise<void>): Promise<never> {
  const known = error instanceof StartFailure || error instanceof ConfigError;
  process.stderr.write(known ? `${(error as Error).message}\n` : `Start failed: ${error instanceof Error ? error.message : String(error)}\n`);
  if (cleanup) await Promise.race([cleanup().catch(() => undefined), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
  process.exit(1);
}

/** Each delivery the sandbox's receiver verified, between blank lines so it stands out among the logs. */
export function describeVerifiedWebhook(event: ReceivedWebhook): string {
  return `\n  WEBHOOK received and signature verified (sandbox receiver):\n${formatReceivedWebhook(event).replace(/^/gm, '  ')}\n\n`;
}

/**
 * The banner's EVM lines, the same in both editions: per local node the chain it stands in for,
 * USDC and USDT with their modes and a create command for each; then the pay commands, exact and
 * (fixed-address) inexact. The merchant's key and fixed address are the same on every chain.
 */
export function sandboxBaseLines(sandbox: SandboxBase, create: (body: string) => string, invoice: string): string[] {
  const [first] = sandbox.evms;
  if (!first) return [`  EVM:     not in this sandbox: ${sandbox.baseUnavailable}`];
  const modes =
    first.usdcMode === 'xpub'
      ? ['           USDC: an address per invoice (xpub mode).', '           USDT: fixed-address mode, one address for all invoices:']
      : ['           USDC and USDT: fixed-address mode (SANDBOX_USDC_MODE), one address for all invoices:'];
  const label = (text: string) => `  ${`${text}:`.padEnd(Math.max(9, text.length + 2))}`;
  return [
    ...sandbox.evms.map(
      (evm) => `${label(chainFacts[evm.chain].name)}a local EVM node (chain id ${evm.anvil.chainId}, not ${chainFacts[evm.chain].name}) with a test USDC and a test USDT.`,
    ),
    ...modes,
    `           ${first.fixedAddress}; the nonce in the amount's last 4 decimals tells`,
    '           the invoice apart, and two RPC sources confirm each payment.',
    ...sandbox.evms.flatMap((evm) => [
      `  Create:  ${create(`{"chain":"${evm.chain}","amount_usd":12.5}`)}`,
      `  Create:  ${create(`{"chain":"${evm.chain}","asset":"usdt","amount_usd":12.34}`)}`,
    ]),
    '  Agents:  a USDC invoice\'s x402_url is paid with an x402 client (@x402/fetch); the sandbox settles',
    '           it. Fund an agent wallet:  npx service fund <0x address> [amount_usd]   (docs/agents.md)',
    `  Orphan:  npx service pay ${invoice} --amount 12.34    (not the exact amount: a payment.orphan webhook)`,
    `  Pay:     npx service pay ${invoice} [amount_usd]       Confirm:  npx service mine`,
  ];
}
