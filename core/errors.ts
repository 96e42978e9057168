import { errorCatalogue, type ErrorCode } from '../shared/index.ts';
import { isDatabaseOutage } from './db/availability.ts';

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

/** Seconds a client is told to wait (`Retry-After`) when the database cannot be used. */
export const DATABASE_RETRY_AFTER_S = 5;

/**
 * The stable answer to a failure, when it has one: a ServiceError as it is, a query that failed
 * because the database cannot be used as `database_unavailable`; null for anything else (a bug:
 * the caller's generic 500).
 */
export function asServiceError(error: unknown): ServiceError | null {
  if (error instanceof ServiceError) return error;
  if (isDatabaseOutage(error)) {
    return new ServiceError('database_unavailable', 'The database cannot be used right now. Retry in a few seconds.', { retryAfterS: DATABASE_RETRY_AFTER_S });
  }
  return null;
}

/**
 * Whether a request that threw this was answered 5xx: the service failed, not the client, so the
 * request gives back what it took (a rate-limit slot).
 */
export function isServiceFailure(error: unknown): boolean {
  return !(error instanceof ServiceError) || errorCatalogue[error.code].status >= 500;
}
