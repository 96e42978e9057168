import * as z from 'zod';
import { Account, CreatedInvoice, ErrorEnvelope, Health, InvoiceList, StoredInvoice, withTokenAmountNames, X402PaymentRequired } from '../shared/index.ts';
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
// Cloud's account says what the key's merchant has enabled; optional, so that an older Cloud's account also parses.
const AccountAssets = Account.pick({ enabled_assets: true }).partial();

export type ListenerDocument = 'llms.txt' | 'openapi.json';

export interface ListenerClient {
  createInvoice(body: Record<string, unknown>): Promise<ListenerResult<z.infer<typeof CreatedInvoice>>>;
  getInvoice(invoiceId: string): Promise<ListenerResult<z.infer<typeof StoredInvoice>>>;
  healthAssets(): Promise<ListenerResult<z.infer<typeof HealthAssets>>>;
  /** Cloud's GET /me, read when /health does not say (Cloud's health is the platform's): the merchant's enabled assets. Clients that answer healthAssets themselves lack it. */
  accountAssets?(): Promise<ListenerResult<z.infer<typeof AccountAssets>>>;
  document(name: ListenerDocument): Promise<ListenerResult<string>>;
  /** The invoice's public checkout view (shop, amounts, QR URI): what the MCP Apps invoice view shows. */
  checkoutView(invoiceId: string): Promise<ListenerResult<CheckoutView>>;
  /** The key's most recent invoices, filtered as GET /invoices filters them (query texts); only clients that can list (Cloud) have it. */
  listInvoices?(query: Readonly<Record<string, string>>): Promise<ListenerResult<z.infer<typeof InvoiceList>>>;
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
  const { baseUrl, logger } = options;
  const json = jsonReader(baseUrl);

  async function request<T>(
    method: 'GET' | 'POST',
    path: string,
    read: (answer: Answered) => ListenerResult<T>,
    body?: unknown,
  ): Promise<ListenerResult<T>> {
    const answer = await exchange(options, method, path, body);
    const result = answer.ok ? read(answer) : answer;
    if (!result.ok) {
      const { code, status } = result.failure;
      logger.warn('listener request failed', { method, path, code, status });
    }
    return result;
  }

  return {
    createInvoice: (body) => request('POST', '/invoice', json(CreatedInvoice, withTokenAmountNames), body),
    getInvoice: (invoiceId) => request('GET', `/invoice/${encodeURIComponent(invoiceId)}`, json(StoredInvoice, withTokenAmountNames)),
    healthAssets: () => request('GET', '/health', json(HealthAssets)),
    accountAssets: () => request('GET', '/me', json(AccountAssets)),
    document: (name) => request('GET', `/${name}`, (answer) => ({ ok: true, value: answer.text })),
    // The listener's `/checkout/{id}`; Cloud's base URL ends in /api/v1, whose view is there too.
    checkoutView: (invoiceId) => request('GET', `/checkout/${encodeURIComponent(invoiceId)}`, json(CheckoutView, withTokenAmountNames)),
    x402Requirements: (invoiceId) => x402Requirements(options, invoiceId),
  };
}

/** One request to the listener: its successful answer's text, or the failure (unreachable, timed out, an error envelope). */
async function exchange(options: ListenerClientOptions, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const headers: Record<string, string> = { accept: 'application/json, text/plain' };
  // Sent on reads too: Cloud requires it on GET /api/v1/invoice/:id, the listener ignores it there.
  if (options.apiKey !== undefined) headers['x-service-api-key'] = options.apiKey;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await options.fetch(options.baseUrl + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.timeoutMs),
    });
  } catch (error) {
    return { ok: false, failure: connectionFailure(options, error) };
  }
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    return { ok: false, failure: connectionFailure(options, error) };
  }
  if (response.ok) return { ok: true, status: response.status, text };
  return { ok: false, failure: errorAnswer(response, text) };
}

function connectionFailure({ baseUrl, timeoutMs }: Pick<ListenerClientOptions, 'baseUrl' | 'timeoutMs'>, error: unknown): ListenerFailure {
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

/**
 * Reads a successful answer as JSON of a contract schema (after `fromOlderListener` fills in what an
 * older listener names differently); anything else is a `bad_response`.
 */
const jsonReader =
  (baseUrl: string) =>
  <S extends z.ZodType>(schema: S, fromOlderListener: (data: unknown) => unknown = (data) => data) =>
  (answer: Answered): ListenerResult<z.infer<S>> => {
    let data: unknown;
    try {
      data = JSON.parse(answer.text);
    } catch {
      return badResponse(baseUrl, `HTTP ${answer.status} with a body that is not JSON`);
    }
    const parsed = schema.safeParse(fromOlderListener(data));
    if (!parsed.success) return badResponse(baseUrl, z.prettifyError(parsed.error));
    return { ok: true, value: parsed.data };
  };

function badResponse(baseUrl: string, detail: string): { ok: false; failure: ListenerFailure } {
  return {
    ok: false,
    failure: {
      code: 'bad_response',
      message: `The service at ${baseUrl} answered outside the contract; is LISTENER_URL the listener's address? ${detail}`,
    },
  };
}

/** Public, keyless: any answer but a 402 with the requirements means x402 cannot pay the invoice now. */
async function x402Requirements(options: ListenerClientOptions, invoiceId: string): Promise<X402PaymentRequired | null> {
  try {
    const response = await options.fetch(`${options.baseUrl}/x402/${encodeURIComponent(invoiceId)}`, { signal: AbortSignal.timeout(options.timeoutMs) });
    const text = await response.text();
    if (response.status !== 402) return null;
    const parsed = X402PaymentRequired.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
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
