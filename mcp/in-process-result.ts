import { errorCatalogue, type ErrorCode } from '../shared/index.ts';
import { ServiceError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ListenerResult } from './listener-client.ts';

/**
 * Runs a service call in process and reports it as the HTTP client would: the value as its JSON
 * would parse (dates as text, no undefined fields), a ServiceError as its stable code and status,
 * anything else as the route's 500 code with no internals.
 */
export async function inProcess<T>(work: () => Promise<T>, failureCode: ErrorCode, logger: Logger): Promise<ListenerResult<T>> {
  try {
    return { ok: true, value: JSON.parse(JSON.stringify(await work())) as T };
  } catch (error) {
    if (error instanceof ServiceError) {
      const { retryAfterS } = error.extra;
      return { ok: false, failure: { code: error.code, message: error.message, status: errorCatalogue[error.code].status, ...(retryAfterS !== undefined ? { retryAfterS } : {}) } };
    }
    logger.error('MCP tool call failed', { error, stack: (error as Error)?.stack });
    return { ok: false, failure: { code: failureCode, message: 'Internal error.', status: errorCatalogue[failureCode].status } };
  }
}
