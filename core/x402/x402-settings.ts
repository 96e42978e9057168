import type { EvmChainName } from '../../shared/index.ts';
import type { ChainDefinition } from '../chain-definition.ts';

/** The built-in settler's key: it pays gas for `transferWithAuthorization` and can move no one's tokens. */
export const X402_SETTLER_KEY = 'X402_SETTLER_KEY';
/** Seconds a facilitator or the settler has to verify or settle (mined included), and the transaction to show on our node. */
export const X402_SETTLE_TIMEOUT_S = 'X402_SETTLE_TIMEOUT_S';
const DEFAULT_SETTLE_TIMEOUT_S = 30;
/**
 * The built-in settler's gas budget on each chain, in gas units: `<per hour>,<per invoice>`. Past
 * either, settling pauses (503, reason `settler_gas_budget`) and the payer may send the transfer
 * themselves; a payer who makes settlements revert costs at most this much.
 */
export const X402_SETTLER_GAS_BUDGET = 'X402_SETTLER_GAS_BUDGET';
/** About 20 settlements an hour, 3 tries an invoice (one `transferWithAuthorization` is about 80,000 gas). */
const DEFAULT_GAS_BUDGET = { perHour: 2_000_000n, perInvoice: 300_000n };
/** Any x402 v2 facilitator (`/verify`, `/settle`, `/supported`), for every EVM chain without its own. */
export const X402_FACILITATOR_URL = 'X402_FACILITATOR_URL';

const chainFacilitatorSetting = (envPrefix: string) => `${envPrefix}_X402_FACILITATOR_URL`;

/** What x402 reads of a chain it is given: x402 pays on the EVM family's chains, each under its settings prefix. */
export type X402ChainFacts = Pick<ChainDefinition, 'chain' | 'facts'>;

const evmChainsOf = (chains: readonly X402ChainFacts[]) => chains.filter((chain) => chain.facts.family === 'evm');

/** Every x402 setting name with these chains, for the editions' settings lists. */
export const x402SettingNames = (chains: readonly X402ChainFacts[]): string[] => [
  X402_SETTLER_KEY,
  X402_FACILITATOR_URL,
  X402_SETTLE_TIMEOUT_S,
  X402_SETTLER_GAS_BUDGET,
  ...evmChainsOf(chains).map((chain) => chainFacilitatorSetting(chain.facts.settingsPrefix)),
];

/** How an EVM chain's x402 payments are settled: a facilitator at a URL, or the service's own gas-paying key. */
export type X402Settlement = { kind: 'facilitator'; url: string } | { kind: 'settler'; key: `0x${string}` };

export interface X402Settings {
  /** By chain; a chain left out takes no x402 payments (its invoices' `x402_url` is null). */
  settlement: Partial<Record<EvmChainName, X402Settlement>>;
  /** The bounded wait of one verify, one settle, and of the settlement transaction on our node. */
  settleTimeoutMs: number;
  /** The built-in settler's gas (units) per chain per hour and per invoice; a facilitator pays its own. */
  gasBudget: { perHour: bigint; perInvoice: bigint };
}

/**
 * For each EVM chain of `chains`: its own facilitator URL, else the shared one, else the settler
 * key; none: x402 is off on that chain. Problems are appended to `problems`; the key is never echoed.
 */
export function parseX402Settings(chains: readonly X402ChainFacts[], env: Readonly<Record<string, string | undefined>>, problems: string[]): X402Settings {
  const text = (name: string) => env[name]?.trim() || undefined;
  const keyText = text(X402_SETTLER_KEY);
  let key: `0x${string}` | null = null;
  if (keyText !== undefined) {
    if (/^(0x)?[0-9a-fA-F]{64}$/.test(keyText)) key = (keyText.startsWith('0x') ? keyText : `0x${keyText}`) as `0x${string}`;
    else problems.push(`${X402_SETTLER_KEY} must be a 32-byte hex private key (64 hex digits, 0x optional)`);
  }
  const urlOf = (name: string) => {
    const url = text(name);
    if (url === undefined) return undefined;
    if (!/^https?:\/\/[^/\s]+/.test(url)) {
      problems.push(`${name} must be an http(s) URL`);
      return undefined;
    }
    return url.replace(/\/+$/, '');
  };
  const shared = urlOf(X402_FACILITATOR_URL);
  const settlement: X402Settings['settlement'] = {};
  for (const chain of evmChainsOf(chains)) {
    const name = chain.chain as EvmChainName;
    const url = urlOf(chainFacilitatorSetting(chain.facts.settingsPrefix)) ?? shared;
    if (url) settlement[name] = { kind: 'facilitator', url };
    else if (key) settlement[name] = { kind: 'settler', key };
  }
  const timeoutText = text(X402_SETTLE_TIMEOUT_S);
  let settleTimeoutMs = DEFAULT_SETTLE_TIMEOUT_S * 1000;
  if (timeoutText !== undefined) {
    if (/^\d{1,3}$/.test(timeoutText) && Number(timeoutText) >= 1 && Number(timeoutText) <= 120) settleTimeoutMs = Number(timeoutText) * 1000;
    else problems.push(`${X402_SETTLE_TIMEOUT_S} must be an integer from 1 to 120 (seconds)`);
  }
  return { settlement, settleTimeoutMs, gasBudget: gasBudgetOf(text(X402_SETTLER_GAS_BUDGET), problems) };
}

function gasBudgetOf(budgetText: string | undefined, problems: string[]): X402Settings['gasBudget'] {
  if (budgetText === undefined) return DEFAULT_GAS_BUDGET;
  const match = /^(\d{1,12})\s*,\s*(\d{1,12})$/.exec(budgetText);
  if (!match || BigInt(match[1]!) < BigInt(match[2]!) || BigInt(match[2]!) === 0n) {
    problems.push(`${X402_SETTLER_GAS_BUDGET} must be <gas per hour>,<gas per invoice> (whole gas units, per hour at least per invoice, e.g. 2000000,300000)`);
    return DEFAULT_GAS_BUDGET;
  }
  return { perHour: BigInt(match[1]!), perInvoice: BigInt(match[2]!) };
}

/** Values that must never appear in a log line: the settler key. */
export function x402Secrets(settings: X402Settings): string[] {
  return [...new Set(Object.values(settings.settlement).flatMap((settlement) => (settlement.kind === 'settler' ? [settlement.key, settlement.key.slice(2)] : [])))];
}
