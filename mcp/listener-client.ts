import * as z from 'zod';
import { CreatedInvoice, ErrorEnvelope, Health, InvoiceList, StoredInvoice, withTokenAmountNames, X402PaymentRequired } from '../shared/index.ts';
import { CheckoutView } from '../shared/checkout.ts';
import type { Logger } from '../core/log.ts';

/**
 * A failure as a tool reports it: the listener's stable code, or one of the client's own
 * (`listener_unreachable`, `listener_timeout`, `bad_response`) when no contract answer came back.
 */
export interface ListenerFailure {
  code: string;
  message: string;
  /** HTTP status when the listener answered; absent when it could not be reached. */
  status?: number;
  /** Seconds from a 429's Retry-After header. */
  retryAfterS?: number;
}

export type ListenerResult<T> = { ok: true; value: T } | { ok: false; failure: ListenerFailure };

// Cloud answers with codes beyond the listener's catalogue: accept any code, keep the envelope.
const ForwardedError = z.object({ error: ErrorEnvelope.shape.error.extend({ code: z.string().min(1) }) });
// Only the field list_supported_assets needs, so that Cloud's smaller health object also parses.
const HealthAssets = Health.pick({ enabled_assets: true });

export type ListenerDocument = 'llms.txt' | 'openapi.json';

export interface ListenerClient {
  createInvoice(body: Record<string, unknown>): Promise<ListenerResult<z.infer<typeof CreatedInvoice>>>;
  getInvoice(invoiceId: string): Promise<ListenerResult<z.infer<typeof StoredInvoice>>>;
  healthAssets(): Promise<ListenerResult<z.infer<typeof HealthAssets>>>;
  document(name: ListenerDocument): Promise<ListenerResult<string>>;
  /** The invoice's public checkout view (shop, amounts, QR URI): what the MCP Apps invoice view shows. */
  checkoutView(invoiceId: string): Promise<ListenerResult<CheckoutView>>;
  /** The key's most recent invoices; only clients that can list (Cloud) have it. */
  listInvoices?(limit: number | undefined): Promise<ListenerResult<z.infer<typeof InvoiceList>>>;
  /** The x402 payment requirements of an invoice (its x402_url's 402 answer); null when x402 cannot pay it now. */
  x402Requirements(invoiceId: string): Promise<X402PaymentRequired | null>;
}

export interface ListenerClientOptions {
  baseUrl: string;
  apiKey: string | undefined;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  logger: Logger;
}

interface Answered {
  status: number;
  text: string;
}
type Answer = ({ ok: true } & Answered) | { ok: false; failure: ListenerFailure };

export function createListenerClient(options: ListenerClientOptions): ListenerClient {
  const { baseUrl, apiKey, timeoutMs, logger } = options;

  async function request<T>(
    method: 'GET' | 'POST',
    path: string,
    read: (answer: Answered) => ListenerResult<T>,
    body?: unknown,
  ): Promise<ListenerResult<T>> {
    const answer = await exchange(method, path, body);
    const result = answer.ok ? read(answer) : answer;
    if (!result.ok) {
      const { code, status } = result.failure;
      logger.warn('listener request failed', { method, path, code, status });
    }
    return result;
  }

  async function exchange(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json, text/plain' };
    // Sent on reads too: Cloud requires it on GET /api/v1/invoice/:id, the listener ignores it there.
    if (apiKey !== undefined) headers['x-service-api-key'] = apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await options.fetch(baseUrl + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      return { ok: false, failure: connectionFailure(error) };
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      return { ok: false, failure: connectionFailure(error) };
    }
    if (response.ok) return { ok: true, status: response.status, text };
    return { ok: false, failure: errorAnswer(response, text) };
  }

  function connectionFailure(error: unknown): ListenerFailure {
    if (error instanceof DOMException && error.name === 'TimeoutError') {
      return {
        code: 'listener_timeout',
        message: `The listener at ${baseUrl} did not answer within ${timeoutMs / 1000} s; a create_invoice may still have completed there.`,
      };
    }
    const cause = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    return {
      code: 'listener_unreachable',
      message: `Cannot reach the listener at ${baseUrl} (${cause}). Is it running? The MCP server reads its address from LISTENER_URL.`,
    };
  }

  const json =
    <S extends z.ZodType>(schema: S, fromOlderListener: (data: unknown) => unknown = (data) => data) =>
    (answer: Answered): ListenerResult<z.infer<S>> => {
      let data: unknown;
      try {
        data = JSON.parse(answer.text);
      } catch {
        return badResponse(`HTTP ${answer.status} with a body that is not JSON`);
      }
      const parsed = schema.safeParse(fromOlderListener(data));
      if (!parsed.success) return badResponse(z.prettifyError(parsed.error));
      return { ok: true, value: parsed.data };
    };

  function badResponse(detail: string): { ok: false; failure: ListenerFailure } {
    return {
      ok: false,
      failure: {
        code: 'bad_response',
        message: `The service at ${baseUrl} answered outside the contract; is LISTENER_URL the listener's address? ${detail}`,
      },
    };
  }

  return {
    createInvoice: (body) => request('POST', '/invoice', json(CreatedInvoice, withTokenAmountNames), body),
    getInvoice: (invoiceId) => request('GET', `/invoice/${encodeURIComponent(invoiceId)}`, json(StoredInvoice, withTokenAmountNames)),
    healthAssets: () => request('GET', '/health', json(HealthAssets)),
    document: (name) => request('GET', `/${name}`, (answer) => ({ ok: true, value: answer.text })),
    // The listener's `/checkout/{id}`; Cloud's base URL ends in /api/v1, whose view is there too.
    checkoutView: (invoiceId) => request('GET', `/checkout/${encodeURIComponent(invoiceId)}`, json(CheckoutView, withTokenAmountNames)),
    // Public, keyless: any answer but a 402 with the requirements means x402 cannot pay it now.
    async x402Requirements(invoiceId) {
      try {
        const response = await options.fetch(`${baseUrl}/x402/${encodeURIComponent(invoiceId)}`, { signal: AbortSignal.timeout(timeoutMs) });
        const text = await response.text();
        if (response.status !== 402) return null;
        const parsed = X402PaymentRequired.safeParse(JSON.parse(text));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },
  };
}

function errorAnswer(response: Response, text: string): ListenerFailure {
  let envelope: z.infer<typeof ForwardedError> | undefined;
  try {
    envelope = ForwardedError.parse(JSON.parse(text));
  } catch {
    envelope = undefined;
  }
  if (!envelope) {
    return {
      code: 'bad_response',
      message: `The listener answered HTTP ${response.status} without an error envelope.`,
      status: response.status,
    };
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return {
    code: envelope.error.code,
    message: envelope.error.message,
    status: response.status,
    ...(Number.isFinite(retryAfter) && retryAfter > 0 ? { retryAfterS: retryAfter } : {}),
  };
}
