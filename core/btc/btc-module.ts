import { chainFacts, type BtcNetwork } from '../../shared/index.ts';
import { requiredAmount } from '../invoices/amount-error.ts';
import type { ChainModule } from '../invoices/chain-module.ts';
import { checkoutCommon } from '../invoices/checkout-common.ts';
import { satsToBtc } from './amount.ts';
import { bip21Uri } from './bip21.ts';
import { btcAdapter } from './btc-adapter.ts';
import { btcMerchant } from './btc-merchant.ts';
import { seenSatsOf } from './btc-payment.repository.ts';

/** Bitcoin as the editions, the MCP server and the checkout page see it. Settings: any object once MERCHANT_BTC_XPUB is set. */
export const btcModule: ChainModule<object> = {
  chain: 'btc',
  facts: chainFacts.btc,
  adapter: btcAdapter,
  enabledAssets: () => ['btc'],
  disabled: btcAdapter.disabled,
  paidSoFar: async (db, row) => BigInt(await seenSatsOf(db, row.merchant_id, row.invoice_id)),
  amountText: (row) => satsToBtc(requiredAmount(row.amount_sats, 'amount_sats', row.invoice_id)),
  paymentUri: (row, sats) => bip21Uri(row.receive_address, satsToBtc(sats), row.memo),
  checkoutView(row, context) {
    const sats = BigInt(requiredAmount(row.amount_sats, 'amount_sats', row.invoice_id));
    const { common, due, askFor, seen } = checkoutCommon(row, context, sats);
    return {
      ...common,
      chain: 'btc',
      asset: 'BTC',
      network: (row.network ?? 'mainnet') as BtcNetwork,
      amount_btc: satsToBtc(sats),
      amount_due: satsToBtc(due),
      payment_seen: seen,
      qr_uri: btcModule.paymentUri(row, askFor),
    };
  },
  confirmingTakes: () => 'the Bitcoin network is confirming it, which usually takes 10 to 60 minutes',
  merchant: btcMerchant,
};

