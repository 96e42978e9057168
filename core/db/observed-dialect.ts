import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryCompiler, QueryResult, TransactionSettings } from 'kysely';
import { markDatabaseError, type DatabaseHealth } from './availability.ts';

/**
 * A dialect whose every connection and query reports to `health`: failures (marked as database
 * errors, so the HTTP edge can answer them as such) and successes. Transactions run over the
 * observed connection too, so a failed commit counts.
 */
export function observedDialect(dialect: Dialect, health: DatabaseHealth): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new ObservedDriver(dialect.createDriver(), health),
  };
}

const NO_TRANSACTION = /cannot rollback - no transaction is active/;

class ObservedDriver implements Driver {
  /** Observed connection → the driver's own, and back: one wrapper per connection, made once. */
  readonly #originals = new WeakMap<DatabaseConnection, DatabaseConnection>();
  readonly #observed = new WeakMap<DatabaseConnection, DatabaseConnection>();

  constructor(
    private readonly inner: Driver,
    private readonly health: DatabaseHealth,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  acquireConnection(): Promise<DatabaseConnection> {
    return this.inner.acquireConnection().then(
      (connection) => this.#observe(connection),
      (error) => {
        this.#failed(error);
        throw error;
      },
    );
  }

  #observe(connection: DatabaseConnection): DatabaseConnection {
    let observed = this.#observed.get(connection);
    if (!observed) {
      observed = {
        executeQuery: <R>(query: CompiledQuery) => {
          let pending: Promise<QueryResult<R>>;
          try {
            // kysely's SQLite connection throws synchronously (better-sqlite3 is synchronous).
            pending = connection.executeQuery<R>(query);
          } catch (error) {
            this.#failed(error);
            throw error;
          }
          return pending.then(
            (result) => {
              this.health.succeeded(query);
              return result;
            },
            (error) => {
              this.#failed(error);
              throw error;
            },
          );
        },
        streamQuery: (query, chunkSize) => connection.streamQuery(query, chunkSize),
      };
      this.#observed.set(connection, observed);
      this.#originals.set(observed, connection);
    }
    return observed;
  }

  #failed(error: unknown) {
    markDatabaseError(error);
    this.health.failed(error);
  }

  // The drivers run BEGIN, COMMIT and savepoints as queries on the connection they are given: the observed one.
  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(connection);
    } catch (error) {
      // SQLite rolls a transaction back by itself after some errors (SQLITE_FULL, SQLITE_IOERR):
      // the ROLLBACK that follows must not replace that error with its own.
      if (!NO_TRANSACTION.test((error as Error)?.message ?? '')) throw error;
    }
  }
  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.savepoint?.(connection, name, compile);
  }
  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.rollbackToSavepoint?.(connection, name, compile);
  }
  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await this.inner.releaseSavepoint?.(connection, name, compile);
  }

  // The driver's own connection object goes back: pg's release is a private method of it.
  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(this.#originals.get(connection) ?? connection);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}
