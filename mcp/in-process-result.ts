import * as z from 'zod';
import { errorCatalogue, type ErrorCode } from '../shared/index.ts';
import { asServiceError, ServiceError } from '../core/errors.ts';
import type { Logger } from '../core/log.ts';
import type { ListenerResult } from './listener-client.ts';

/**
 * Runs a service call in process and reports it as the HTTP client would: the value as its JSON
 * parses through the same contract schema (dates as text, fields beyond the schema dropped), a
 * ServiceError as its stable code and status, anything else as the route's 500 code with no internals.
 */
export async function inProcess<S extends z.ZodType>(schema: S, work: () => Promise<unknown>, failureCode: ErrorCode, logger: Logger): Promise<ListenerResult<z.infer<S>>> {
  let value: unknown;
  try {
    value = JSON.parse(JSON.stringify(await work()));
  } catch (thrown) {
    const error = asServiceError(thrown) ?? thrown;
    if (error instanceof ServiceError) {
      const { retryAfterS } = error.extra;
      return { ok: false, failure: { code: error.code, message: error.message, status: errorCatalogue[error.code].status, ...(retryAfterS !== undefined ? { retryAfterS } : {}) } };
    }
    logger.error('MCP tool call failed', { error, stack: (error as Error)?.stack });
    return { ok: false, failure: { code: failureCode, message: 'Internal error.', status: errorCatalogue[failureCode].status } };
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, value: parsed.data };
  logger.error('MCP in-process answer outside the contract', { problem: z.prettifyError(parsed.error) });
  return { ok: false, failure: { code: 'bad_response', message: 'The service answered outside the contract.' } };
}
