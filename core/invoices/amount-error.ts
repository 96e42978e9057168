/**
 * Why an amount cannot be used, as a stable code: the request's amount is malformed, or a stored
 * invoice lacks the amount its chain needs (never read as zero: money has no silent default).
 */
export type AmountErrorCode = 'not_a_number' | 'not_positive' | 'too_precise' | 'too_large' | 'missing';

export class AmountError extends Error {
  constructor(
    readonly code: AmountErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The stored amount of an invoice row, or an AmountError: a row without one is damaged, not free. */
export function requiredAmount<T>(value: T | null | undefined, field: string, invoiceId: string): T {
  if (value === null || value === undefined) throw new AmountError('missing', `invoice ${invoiceId} has no ${field}`);
  return value;
}
