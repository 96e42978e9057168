import { ServiceError } from '../errors.ts';
import type { ChainAdapter, ChainReceiver } from '../invoices/chain-adapter.ts';
import { methodFor } from '../invoices/payment-method.ts';
import { rowToBtcInvoice } from './btc-invoice.mapper.ts';
import { btcPaymentSeenBeforeExpiry } from './btc-payment.repository.ts';
import { btcPaymentMethods } from './methods/btc-methods.ts';
import type { BtcReceiverOptions } from './methods/derived-address.ts';

export type { BtcReceiverOptions } from './methods/derived-address.ts';

/** Bitcoin for the invoice engine, whoever the merchant. */
export const btcAdapter: ChainAdapter = {
  chain: 'btc',
  toStoredInvoice: rowToBtcInvoice,
  paymentSeenBeforeExpiry: btcPaymentSeenBeforeExpiry,
  disabled: () => new ServiceError('chain_disabled', 'Bitcoin is not configured on this listener (set MERCHANT_BTC_XPUB).'),
};

/** Bitcoin invoices of one merchant, through the payment method its settings offer. */
export function btcReceiver(btc: BtcReceiverOptions): ChainReceiver {
  return {
    async create(creation, request) {
      const method = methodFor(btcPaymentMethods, btc, 'BTC');
      if (!method) throw btcAdapter.disabled();
      return method.receive(creation, btc, request);
    },
  };
}
