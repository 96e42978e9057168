import type { CompiledQuery } from 'kysely';
import type { WatcherProblem } from '../watch-progress.ts';

/** Connection-level failures: the server is gone, restarting, or was never reached. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * PostgreSQL SQLSTATEs of a server that cannot serve now: class 08 (connection exception),
 * 57P01-57P03 (terminated by an administrator, crash shutdown, starting up or shutting down),
 * 53300 (too many connections).
 */
const POSTGRES_STATES = /^(08...|57P0[1-3]|53300)$/;
/** What pg says when a connection ends under a query, or the pool cannot get one in time. */
const POSTGRES_MESSAGES = /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Connection ended/i;
/** SQLite: disk or database full, file locked by another connection, I/O error. */
const SQLITE_CODES = /^SQLITE_(FULL|BUSY|LOCKED|IOERR|READONLY|CANTOPEN)/;

/**
 * Whether `error` means the database cannot be used right now (a transient condition the caller
 * retries), as against a failure of the statement itself. Looks through `cause` and the errors of
 * an AggregateError (a connect that tried several addresses).
 */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  const { code, message, cause, errors } = error as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || POSTGRES_STATES.test(code) || SQLITE_CODES.test(code))) return true;
  if (typeof message === 'string' && POSTGRES_MESSAGES.test(message)) return true;
  if (Array.isArray(errors) && errors.some((e) => isDatabaseUnavailable(e, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}

const FROM_DATABASE = Symbol('database error');

/** Marks an error a database query or connection threw (see observedDialect), so the HTTP edge can tell it from others. */
export function markDatabaseError(error: unknown): void {
  if (error && typeof error === 'object' && !Object.isFrozen(error)) Object.defineProperty(error, FROM_DATABASE, { value: true });
}

/** A database query or connection failed because the database cannot be used right now. */
export function isDatabaseOutage(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 3) return false;
  if (FROM_DATABASE in error) return isDatabaseUnavailable(error);
  return isDatabaseOutage((error as { cause?: unknown }).cause, depth + 1);
}

/** What the error says, for logs and /health: its code (if any) and first line, never a stack. */
export function describeDatabaseError(error: unknown): string {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' && message ? message.split('\n')[0] : String(error);
  return (typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text).slice(0, 200);
}

const WRITE_KINDS = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);
const WRITE_SQL = /^\s*(insert|update|delete|commit)\b/i;

/** Whether a query writes: a write that succeeds shows SQLite has room and no lock in the way again. */
export function isWrite(query: CompiledQuery): boolean {
  return WRITE_KINDS.has(query.query.kind) || (query.query.kind === 'RawNode' && WRITE_SQL.test(query.sql));
}

/**
 * The database's own health, from what its queries met: the first failure of the unavailable kind
 * opens a problem (`component: database`), which lasts until a query succeeds again. On SQLite
 * reads go on while a full disk or a lock refuses every write, so there only a write that
 * succeeds ends it.
 */
export function createDatabaseHealth(dialect: 'sqlite' | 'postgres', now: () => number = Date.now) {
  let problem: WatcherProblem | null = null;
  return {
    failed(error: unknown) {
      if (!isDatabaseUnavailable(error)) return;
      const reason = `the database cannot be used: ${describeDatabaseError(error)}`;
      problem = { component: 'database', kind: 'failing', reason, since: problem?.since ?? new Date(now()).toISOString() };
    },
    /** A query succeeded: a problem ends (SQLite: if the query wrote). */
    succeeded(query: CompiledQuery) {
      if (problem && (dialect === 'postgres' || isWrite(query))) problem = null;
    },
    problem: (): WatcherProblem | null => problem,
  };
}

export type DatabaseHealth = ReturnType<typeof createDatabaseHealth>;
