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
  /** The POST /invoice `payment_methods` that select it (Bitcoin over Lightning). */
  methods?: ['lightning'];
}

const lightningOn = (chain: ChainName): boolean => 'lightning' in chainFacts[chain] && chainFacts[chain].lightning === true;

/** Every (chain, asset) pair, named `btc` for Bitcoin and `<token>-<chain>` (usdc-base, usdt-eth) for the EVM chains. */
const assetEntries: AssetEntry[] = chainNames.flatMap((chain): AssetEntry[] =>
  chainFacts[chain].family !== 'evm'
    ? [{ id: chain, chain, asset: chainFacts[chain].assets[0] }, ...(lightningOn(chain) ? [{ id: `${chain}-lightning`, chain, asset: chainFacts[chain].assets[0], methods: ['lightning'] as ['lightning'] }] : [])]
    : chainFacts[chain].assets.map((asset) => {
        const symbol = asset.toLowerCase() as TokenSymbol;
        return { id: `${symbol}-${chain}`, chain, asset: asset as Asset, symbol };
      }),
);

export const AssetId = z
  .enum(assetEntries.map((entry) => entry.id) as [string, ...string[]])
  .describe(`btc: Bitcoin, priced in sats. btc-lightning: Bitcoin over Lightning, through the merchant's own wallet (a BOLT11 invoice). <token>-<chain> (usdc-base, usdt-eth, …): USDC / USDT on ${chainList(evmChainNames)}, priced in USD.`);
export type AssetId = z.infer<typeof AssetId>;

export const SupportedAsset = z
  .object({
    id: AssetId,
    chain: RequestChain.describe('The `chain` of POST /invoice.'),
    asset: z.enum(['BTC', 'USDC', 'USDT']).describe('What the payer sends.'),
    amount_field: z.enum(['amount_sats', 'amount_usd']).describe('The POST /invoice field that carries the amount.'),
    unit: z.enum(['sats', 'USD']).describe('Unit of amount_field.'),
    request: z
      .object({ chain: RequestChain, asset: CreateInvoiceRequest.shape.asset, payment_methods: CreateInvoiceRequest.shape.payment_methods })
      .describe('The POST /invoice fields that select this asset; add the amount.'),
  })
  .meta({ id: 'SupportedAsset' });
export type SupportedAsset = z.infer<typeof SupportedAsset>;

/** Every asset an invoice can be paid in, by the id agents and docs use for it. */
export const supportedAssets: readonly SupportedAsset[] = assetEntries.map(({ id, chain, asset, symbol, methods }) => ({
  id,
  chain,
  asset,
  amount_field: chainFacts[chain].amountField,
  unit: chainFacts[chain].unit,
  request: symbol ? { chain, asset: symbol } : methods ? { chain, payment_methods: methods } : { chain },
}));

/** The id of `asset` on `chain` (`USDT` on `eth`: `usdt-eth`). */
export function assetIdOf(chain: ChainName, asset: string): AssetId {
  const entry = assetEntries.find((e) => e.chain === chain && e.asset === asset);
  if (!entry) throw new Error(`no asset ${asset} on ${chain}`);
  return entry.id;
}
