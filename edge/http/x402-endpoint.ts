import type { RouterMiddleware } from '@koa/router';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { ServiceError } from '../../core/errors.ts';
import { refused, refusalReasons } from '../../core/x402/authorization.ts';
import { paymentRequiredOf } from '../../core/x402/requirements.ts';
import type { X402Payments } from '../../core/x402/x402-payments.ts';
import { limitRequests, type CallLimit } from './rate-limit.ts';

/** x402 v2 HTTP transport headers. */
const PAYMENT_SIGNATURE = 'PAYMENT-SIGNATURE';
const PAYMENT_REQUIRED = 'PAYMENT-REQUIRED';
const PAYMENT_RESPONSE = 'PAYMENT-RESPONSE';

/** The header's JSON, whatever it holds: checkPayment refuses every shape but the one offered. */
function decodePayment(header: string): unknown {
  try {
    return decodePaymentSignatureHeader(header) as unknown;
  } catch {
    throw refused(refusalReasons.payload, 'PAYMENT-SIGNATURE is not base64-encoded JSON of an x402 payment payload.');
  }
}

/**
 * An invoice's x402 URL (`GET /x402/:id`): 402 with the requirements, or the payment settled and
 * 200 with PAYMENT-RESPONSE. A refused payment also carries PAYMENT-REQUIRED with x402's reason,
 * for clients that read only the header; the body is the error envelope. `limit` counts requests
 * per client address; Cloud's `shareLimit`, after it, by the invoice (its merchant's share).
 */
export function x402Handlers(payments: X402Payments, limit: CallLimit, shareLimit?: CallLimit): RouterMiddleware[] {
  return [
    limitRequests(limit, (ctx) => ctx.ip),
    ...(shareLimit ? [limitRequests(shareLimit, (ctx) => ctx.params.id!)] : []),
    async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Access-Control-Expose-Headers', `${PAYMENT_REQUIRED}, ${PAYMENT_RESPONSE}`);
      const invoiceId = ctx.params.id!;
      const header = ctx.get(PAYMENT_SIGNATURE);
      if (!header) {
        const { paymentRequired } = await payments.quote(invoiceId);
        ctx.status = 402;
        ctx.set(PAYMENT_REQUIRED, encodePaymentRequiredHeader(paymentRequired));
        ctx.body = paymentRequired;
        return;
      }
      try {
        const paid = await payments.pay(invoiceId, decodePayment(header));
        ctx.set(PAYMENT_RESPONSE, encodePaymentResponseHeader(paid.response));
        ctx.body = paid.invoice;
      } catch (error) {
        if (error instanceof ServiceError && error.code === 'invalid_payment') {
          const quote = await payments.quote(invoiceId).catch(() => null);
          const reason = String(error.extra.details?.reason ?? 'invalid_payment');
          if (quote) ctx.set(PAYMENT_REQUIRED, encodePaymentRequiredHeader(paymentRequiredOf(quote.paymentRequired.resource.url, quote.requirements, reason)));
        }
        throw error;
      }
    },
  ];
}
