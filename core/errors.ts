import { errorCatalogue, type ErrorCode } from '../shared/index.ts';

/** An expected failure with a stable contract code; the HTTP edge renders it as the error envelope. */
export class ServiceError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: { retryAfterS?: number; details?: Record<string, unknown>; /** A `WWW-Authenticate` header to send with it. */ challenge?: string } = {},
  ) {
    super(message);
    this.name = 'ServiceError';
  }
}

/**
 * Whether a request that threw this was answered 5xx: the service failed, not the client, so the
 * request gives back what it took (a rate-limit slot).
 */
export function isServiceFailure(error: unknown): boolean {
  return !(error instanceof ServiceError) || errorCatalogue[error.code].status >= 500;
}
