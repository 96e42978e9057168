import * as z from 'zod';
import { chainFacts, chainList, chainNames, evmChainNames, type ChainName } from './chains.ts';
import { CreateInvoiceRequest, RequestChain } from './invoice.ts';

type Asset = (typeof chainFacts)[ChainName]['assets'][number];
type TokenSymbol = NonNullable<CreateInvoiceRequest['asset']>;

interface AssetEntry {
  id: string;
  chain: ChainName;
  asset: Asset;
  /** The POST /invoice `asset` of an EVM token; a chain with one asset needs none. */
  symbol?: TokenSymbol;
}

/** Every (chain, asset) pair, named `btc` for Bitcoin and `<token>-<chain>` (usdc-base, usdt-eth) for the EVM chains. */
const assetEntries: AssetEntry[] = chainNames.flatMap((chain): AssetEntry[] =>
  chainFacts[chain].family !== 'evm'
    ? [{ id: chain, chain, asset: chainFacts[chain].assets[0] }]
    : chainFacts[chain].assets.map((asset) => {
        const symbol = asset.toLowerCase() as TokenSymbol;
        return { id: `${symbol}-${chain}`, chain, asset: asset as Asset, symbol };
      }),
);

export const AssetId = z
  .enum(assetEntries.map((entry) => entry.id) as [string, ...string[]])
  .describe(`btc: Bitcoin, priced in sats. <token>-<chain> (usdc-base, usdt-eth, …): USDC / USDT on ${chainList(evmChainNames)}, priced in USD.`);
export type AssetId = z.infer<typeof AssetId>;

export const SupportedAsset = z
  .object({
    id: AssetId,
    chain: RequestChain.describe('The `chain` of POST /invoice.'),
    asset: z.enum(['BTC', 'USDC', 'USDT']).describe('What the payer sends.'),
    amount_field: z.enum(['amount_sats', 'amount_usd']).describe('The POST /invoice field that carries the amount.'),
    unit: z.enum(['sats', 'USD']).describe('Unit of amount_field.'),
    request: z
      .object({ chain: RequestChain, asset: CreateInvoiceRequest.shape.asset })
      .describe('The POST /invoice fields that select this asset; add the amount.'),
  })
  .meta({ id: 'SupportedAsset' });
export type SupportedAsset = z.infer<typeof SupportedAsset>;

/** Every asset an invoice can be paid in, by the id agents and docs use for it. */
export const supportedAssets: readonly SupportedAsset[] = assetEntries.map(({ id, chain, asset, symbol }) => ({
  id,
  chain,
  asset,
  amount_field: chainFacts[chain].amountField,
  unit: chainFacts[chain].unit,
  request: symbol ? { chain, asset: symbol } : { chain },
}));

/** The id of `asset` on `chain` (`USDT` on `eth`: `usdt-eth`). */
export function assetIdOf(chain: ChainName, asset: string): AssetId {
  const entry = assetEntries.find((e) => e.chain === chain && e.asset === asset);
  if (!entry) throw new Error(`no asset ${asset} on ${chain}`);
  return entry.id;
}
