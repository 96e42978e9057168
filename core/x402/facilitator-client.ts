import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types';
import * as z from 'zod';
import { readBoundedJson } from '../net/bounded-body.ts';
import type { Fetch } from '../net/fetch.ts';
import { sourceLabel } from '../net/request-budget.ts';

/**
 * A facilitator's largest honest answer: a verify or settle result is a few fields (a verdict, a
 * transaction hash, a payer, a reason) and any extension data, well under a kilobyte; 64 KB leaves room.
 */
export const MAX_FACILITATOR_ANSWER_BYTES = 64 * 1024;

// What the service reads of each answer; other fields pass through untouched.
const verifyAnswer = z.looseObject({ isValid: z.boolean(), invalidReason: z.string().optional(), invalidMessage: z.string().optional(), payer: z.string().optional() });
const settleAnswer = z.looseObject({ success: z.boolean(), transaction: z.string(), network: z.string(), errorReason: z.string().optional(), errorMessage: z.string().optional(), payer: z.string().optional() });

/**
 * An x402 v2 facilitator over HTTP (`POST /verify`, `POST /settle`) through the injected fetch,
 * each answer read within its size cap and the settle timeout. @x402/core's own client reads
 * bodies whole with the global fetch; the wire format is the same.
 */
export function createFacilitatorClient(url: string, timeoutMs: number, fetch: Fetch) {
  const base = url.replace(/\/+$/, '');
  const label = sourceLabel(base);

  async function post(operation: 'verify' | 'settle', payload: PaymentPayload, requirements: PaymentRequirements): Promise<unknown> {
    const body = JSON.stringify({ x402Version: payload.x402Version, paymentPayload: payload, paymentRequirements: requirements }, (_, value) => (typeof value === 'bigint' ? value.toString() : value));
    const res = await fetch(`${base}/${operation}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) {
      // As with @x402/core's client, a non-2xx answer (even a refusal in JSON) fails the call.
      await res.body?.cancel().catch(() => {});
      throw new Error(`facilitator ${label} ${operation} answered HTTP ${res.status}`);
    }
    return readBoundedJson(res, { source: label, what: `POST /${operation}`, maxBytes: MAX_FACILITATOR_ANSWER_BYTES, timeoutMs });
  }

  return {
    async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
      return verifyAnswer.parse(await post('verify', payload, requirements)) as VerifyResponse;
    },
    async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      return settleAnswer.parse(await post('settle', payload, requirements)) as SettleResponse;
    },
  };
}
