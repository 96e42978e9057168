import type * as z from 'zod';
import { chainList, CreateInvoiceRequest, DEFAULT_CHAIN, type ChainName, type DecimalText, type ErrorCode, type NumberTexts } from '../../shared/index.ts';
import { ServiceError } from '../errors.ts';

const codeByField: Record<string, ErrorCode> = {
  chain: 'unsupported_chain',
  amount_sats: 'invalid_amount',
  amount_usd: 'invalid_amount',
  price_amount: 'invalid_amount',
  price_currency: 'invalid_amount',
  asset: 'asset_disabled',
};

/** Which code wins when a body has several problems: the most fundamental one. */
const precedence: ErrorCode[] = ['bad_body', 'unsupported_chain', 'invalid_amount', 'asset_disabled'];

function issueCode(issue: z.core.$ZodIssue): ErrorCode {
  if (issue.path.length === 0) return 'bad_body';
  const field = String(issue.path[0]);
  return Object.hasOwn(codeByField, field) ? codeByField[field]! : 'bad_body';
}

function describe(issue: z.core.$ZodIssue): string {
  return issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message;
}

/**
 * Validates a POST /invoice body against the contract. `whyDisabled` is asked between the chain
 * check and the rest (null: the merchant receives on it), so a request for a disabled chain is
 * told so before its amount is judged.
 * `numberTexts` (from the HTTP edge) holds the body's numbers as written: amount_usd is taken from
 * there, exact, rather than from the double JSON.parse made of it.
 */
export function parseCreateInvoiceRequest(
  body: unknown,
  whyDisabled: (chain: ChainName) => ServiceError | null,
  numberTexts?: NumberTexts,
): CreateInvoiceRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ServiceError('bad_body', 'The body must be a JSON object.');
  }
  // JSON.parse makes "__proto__" an own key, which the contract's record drops without a word.
  const metadata = (body as { metadata?: unknown }).metadata;
  if (typeof metadata === 'object' && metadata !== null && Object.hasOwn(metadata, '__proto__')) {
    throw new ServiceError('bad_body', 'metadata.__proto__: the key __proto__ is reserved.');
  }
  const result = CreateInvoiceRequest.safeParse(body);
  const issues = result.success ? [] : result.error.issues;
  const chainIssue = issues.find((issue) => issueCode(issue) === 'unsupported_chain');
  if (chainIssue) throw new ServiceError('unsupported_chain', `chain must be ${chainList()}.`);

  const disabled = whyDisabled(((body as { chain?: unknown }).chain ?? DEFAULT_CHAIN) as ChainName);
  if (disabled) throw disabled;
  if (!result.success) {
    const worst = [...issues].sort((a, b) => precedence.indexOf(issueCode(a)) - precedence.indexOf(issueCode(b)))[0];
    const code = issueCode(worst);
    throw new ServiceError(code, issues.filter((issue) => issueCode(issue) === code).map(describe).join('; '));
  }
  const amountText = numberTexts?.get('amount_usd') as DecimalText | undefined;
  return result.data.amount_usd !== undefined && amountText !== undefined ? { ...result.data, amount_usd: amountText } : result.data;
}
