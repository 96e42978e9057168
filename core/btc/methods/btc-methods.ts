import type { CreateInvoiceRequest } from '../../../shared/index.ts';
import type { ReceivingMethod } from '../../invoices/payment-method.ts';
import type { PaymentView } from '../confirmation-rules.ts';
import { btcDerivedAddress, type BtcReceiverOptions } from './derived-address.ts';

/**
 * Bitcoin's receiving methods, in order of preference: the receiver takes the first one a
 * merchant's settings offer. A new method is one module added here.
 */
export const btcPaymentMethods: ReadonlyArray<ReceivingMethod<BtcReceiverOptions, PaymentView, CreateInvoiceRequest>> = [btcDerivedAddress];
