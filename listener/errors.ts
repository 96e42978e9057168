import type { ErrorCode } from '../shared/index.ts';

/** An expected failure with a stable contract code; the HTTP edge renders it as the error envelope. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { retryAfterS?: number; details?: Record<string, unknown> } = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}
