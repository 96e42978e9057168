import type { Kysely } from 'kysely';
import { formatEther } from 'viem';
import type { X402Health } from '../../shared/index.ts';
import type { ServiceMetrics } from '../metrics.ts';
import type { Fetch } from '../net/fetch.ts';
import { countUnseenSettlements, settlerGasSince } from './settlement.repository.ts';
import { chainReader, LOW_BALANCE_SETTLEMENTS, networkOf, SETTLEMENT_GAS, settlerFor } from './settlers.ts';
import type { X402Chain, X402Observer } from './x402-payments.ts';
import { X402_SETTLER_GAS_BUDGET, type X402Settings } from './x402-settings.ts';
import type { X402Tables } from './x402.tables.ts';

/** The EVM chains an edition serves, as x402 needs them: the chain id and our own node. */
export interface X402ChainSettings {
  chain: string;
  chainId: number;
  rpcUrls: readonly string[];
}

/** The chains that take x402 payments: those with settlement set up, each read through its first RPC URL. */
/** `fetch`: the network access of the chains' nodes and the facilitators. */
export function x402Chains(settings: X402Settings, chains: readonly X402ChainSettings[], fetch: Fetch): Map<string, X402Chain> {
  const served = new Map<string, X402Chain>();
  for (const chain of chains) {
    const settlement = settings.settlement[chain.chain as keyof X402Settings['settlement']];
    const rpcUrl = chain.rpcUrls[0];
    if (!settlement || !rpcUrl) continue;
    served.set(chain.chain, {
      chainId: chain.chainId,
      reader: chainReader(rpcUrl, chain.chainId, settings.settleTimeoutMs, fetch),
      settler: settlerFor(settlement, rpcUrl, chain.chainId, settings.settleTimeoutMs, fetch),
    });
  }
  return served;
}

/** The payments' share of the x402 settings (x402-payments.ts). */
export const x402PaymentSettings = (settings: X402Settings) => ({ receiptWaitMs: settings.settleTimeoutMs, settlerGasBudget: settings.gasBudget });

export const x402Observer = (metrics: ServiceMetrics): X402Observer => ({
  settlement: (chain, outcome) => metrics.x402Settlements.inc({ chain, outcome }),
  settlerGas(chain, gas, reverted) {
    metrics.x402SettlerGas.inc({ chain }, Number(gas));
    if (reverted) metrics.x402SettlerReverts.inc({ chain });
  },
});

/**
 * /health's x402 section; null when no chain takes x402 payments. The settler's balance and its gas
 * of the last hour against X402_SETTLER_GAS_BUDGET. `merchantId`: count only its settlements.
 */
export async function x402Health(
  chains: ReadonlyMap<string, X402Chain>,
  db: Kysely<X402Tables>,
  context: { now: number; budget: X402Settings['gasBudget']; merchantId?: string },
): Promise<X402Health | null> {
  if (chains.size === 0) return null;
  const entries = await Promise.all(
    [...chains].map(async ([name, chain]): Promise<[string, X402Health['chains'][string]]> => {
      const none = { settler_address: null, settler_balance_wei: null, settler_gas_last_hour: null };
      if (!chain.settler.gasAccount) return [name, { settlement: 'facilitator', ...none, warning: null }];
      const spent = await settlerGasSince(db, networkOf(chain.chainId), context.now - 3_600_000);
      const gas = { settler_gas_last_hour: spent.toString() };
      const paused = spent + SETTLEMENT_GAS > context.budget.perHour ? `settling is paused: the settler spent ${spent} gas this hour, its budget (${X402_SETTLER_GAS_BUDGET})` : null;
      try {
        const account = await chain.settler.gasAccount();
        const low = account.low ? `the settler ${account.address} holds ${formatEther(account.balanceWei)} in gas, less than ${LOW_BALANCE_SETTLEMENTS} settlements need: top it up` : null;
        return [name, { settlement: 'settler', settler_address: account.address, settler_balance_wei: account.balanceWei.toString(), ...gas, warning: paused ?? low }];
      } catch {
        return [name, { settlement: 'settler', ...none, ...gas, warning: paused ?? "the settler's node does not answer" }];
      }
    }),
  );
  return { chains: Object.fromEntries(entries), unseen_settlements: await countUnseenSettlements(db, context.merchantId) };
}

/** The x402 path of an invoice under a base URL (the listener's; Cloud adds its /api/v1 prefix). */
export const x402UrlUnder = (baseUrl: string, prefix: string, invoiceId: string) => `${baseUrl}${prefix}/x402/${encodeURIComponent(invoiceId)}`;
