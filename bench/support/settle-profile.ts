/**
 * The Bitcoin settle pass of a Cloud database, re-run from the bench with every statement timed:
 * the paid invoices are put back to pending with their payments unreported and their
 * invoice.confirmed events removed (the Cloud process stopped), then `settleInvoices` runs as the
 * watcher runs it, through a Kysely that logs each statement's duration. On Postgres the costliest
 * statements are then run again under `EXPLAIN (ANALYZE, BUFFERS)`, each in a transaction rolled
 * back, on the same reset state; a last pass leaves the invoices confirmed as they were.
 */
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, PostgresDialect, SqliteDialect, type LogEvent } from 'kysely';
import pg from 'pg';
import { lastProcessedBlock, networksScope } from '../../core/btc/btc-payment.repository.ts';
import { settleInvoices } from '../../core/btc/settlement.ts';
import { chunks } from '../../core/db/chunks.ts';
import { createMemoryStatusFeed } from '../../core/invoices/status-feed.ts';
import { silentLogger } from '../../core/log.ts';
import type { CoreTables } from '../../core/schema.ts';

const PG_INT8 = 20;
const TOP = 6;
const EXPLAINED = 4;

export interface SettleProfile {
  passMs: number;
  statements: number;
  statementMs: number;
  /** Statements grouped by their SQL text, costliest first. */
  top: Array<{ sql: string; count: number; totalMs: number }>;
  /** Postgres: EXPLAIN (ANALYZE, BUFFERS) of the costliest statements' first run. */
  plans: Array<{ sql: string; plan: string[] }>;
}

type Logged = { sql: string; parameters: readonly unknown[]; ms: number };

function kyselyOf(url: string, log: (event: LogEvent) => void): Kysely<CoreTables> {
  if (url.startsWith('sqlite:')) return new Kysely<CoreTables>({ dialect: new SqliteDialect({ database: new SQLite(url.slice('sqlite:'.length)) }), log });
  const pool = new pg.Pool({
    connectionString: url,
    max: 2,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === PG_INT8 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
    },
  });
  return new Kysely<CoreTables>({ dialect: new PostgresDialect({ pool }), log });
}

/** Puts the paid invoices back as they were before their block was settled. */
async function unsettle(db: Kysely<CoreTables>, paid: ReadonlyArray<{ merchantId: string; invoiceId: string }>) {
  for (const chunk of chunks(paid)) {
    const invoiceIds = chunk.map((p) => p.invoiceId);
    const merchantIds = chunk.map((p) => p.merchantId);
    await db
      .updateTable('invoices')
      .set({ status: 'pending', tx_hash: null, paid_at: null, verification: null, payment_method: null })
      .where('invoice_id', 'in', invoiceIds)
      .execute();
    await db.updateTable('btc_payments').set({ reported: 0 }).where('invoice_id', 'in', invoiceIds).execute();
    await db.deleteFrom('events').where('type', '=', 'invoice.confirmed').where('merchant_id', 'in', merchantIds).execute();
  }
}

export async function profileSettlePass(url: string, paid: ReadonlyArray<{ merchantId: string; invoiceId: string }>): Promise<SettleProfile> {
  let logging = false;
  const logged: Logged[] = [];
  const db = kyselyOf(url, (event) => {
    if (logging) logged.push({ sql: event.query.sql, parameters: event.query.parameters, ms: event.queryDurationMillis });
  });
  try {
    const key = (await db.selectFrom('btc_blocks').select('merchant_id').where('merchant_id', 'like', 'watch:btc:%').limit(1).executeTakeFirstOrThrow()).merchant_id;
    const scope = networksScope(key.slice('watch:btc:'.length).split(','));
    const verification = (await db.selectFrom('invoices').select('verification').where('invoice_id', '=', paid[0].invoiceId).executeTakeFirstOrThrow()).verification ?? 'esplora';
    const pass = async () => {
      const last = (await lastProcessedBlock(db, scope.key))!;
      await settleInvoices(db, createMemoryStatusFeed(), scope, { height: last.height, storedAt: Number(last.processed_at), verification }, Date.now(), silentLogger);
    };
    await unsettle(db, paid);
    logging = true;
    const started = performance.now();
    await pass();
    const passMs = performance.now() - started;
    logging = false;

    const bySql = new Map<string, { sql: string; count: number; totalMs: number; first: Logged }>();
    for (const entry of logged) {
      const group = bySql.get(entry.sql) ?? { sql: entry.sql, count: 0, totalMs: 0, first: entry };
      group.count++;
      group.totalMs += entry.ms;
      bySql.set(entry.sql, group);
    }
    const ranked = [...bySql.values()].sort((a, b) => b.totalMs - a.totalMs);
    const plans: SettleProfile['plans'] = [];
    if (!url.startsWith('sqlite:')) {
      await unsettle(db, paid);
      for (const statement of ranked.filter((s) => !/^(begin|commit|rollback)/i.test(s.sql)).slice(0, EXPLAINED)) {
        plans.push({ sql: statement.sql, plan: await explainAnalyze(db, statement.first) });
      }
    }
    // Leaves the invoices confirmed, as the Cloud had them.
    await unsettle(db, paid);
    await pass();
    return {
      passMs,
      statements: logged.length,
      statementMs: logged.reduce((sum, entry) => sum + entry.ms, 0),
      top: ranked.slice(0, TOP).map(({ sql: text, count, totalMs }) => ({ sql: text.replace(/\s+/g, ' '), count, totalMs })),
      plans,
    };
  } finally {
    await db.destroy();
  }
}

/** The statement's plan as it ran, in a transaction rolled back so that a write changes nothing. */
async function explainAnalyze(db: Kysely<CoreTables>, statement: Logged): Promise<string[]> {
  const rollback = new Error('rolled back');
  let plan: string[] = [];
  await db
    .transaction()
    .execute(async (trx) => {
      const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain (analyze, buffers) ${statement.sql}`, [...statement.parameters]));
      plan = rows.map((row) => row['QUERY PLAN']);
      throw rollback;
    })
    .catch((error) => {
      if (error !== rollback) throw error;
    });
  return plan;
}
