import * as z from 'zod';
import { CreateInvoiceRequest, RequestChain } from './invoice.ts';

export const AssetId = z
  .enum(['btc', 'usdc-base', 'usdt-base'])
  .describe('btc: Bitcoin, priced in sats. usdc-base / usdt-base: USDC / USDT on Base, priced in USD.');
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
export const supportedAssets: readonly SupportedAsset[] = [
  { id: 'btc', chain: 'btc', asset: 'BTC', amount_field: 'amount_sats', unit: 'sats', request: { chain: 'btc' } },
  {
    id: 'usdc-base',
    chain: 'base',
    asset: 'USDC',
    amount_field: 'amount_usd',
    unit: 'USD',
    request: { chain: 'base', asset: 'usdc' },
  },
  {
    id: 'usdt-base',
    chain: 'base',
    asset: 'USDT',
    amount_field: 'amount_usd',
    unit: 'USD',
    request: { chain: 'base', asset: 'usdt' },
  },
];
