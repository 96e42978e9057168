import type { Kysely, Migration } from 'kysely';

/** The x402 settlement locks (see X402SettlementsTable). */
export const x402SettlementsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('x402_settlements')
      .addColumn('invoice_id', 'text', (c) => c.primaryKey())
      .addColumn('merchant_id', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('payer', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('tx_hash', 'text')
      .addColumn('network', 'text', (c) => c.notNull())
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('x402_settlements_state').on('x402_settlements').column('state').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('x402_settlements').execute();
  },
};

/**
 * The authorization's `validBefore` on its lock: a settle that never answered holds the invoice
 * until then (and until the chain is past it), not for a fixed time; null on locks taken before.
 * And the built-in settler's gas spent on the invoice, for X402_SETTLER_GAS_BUDGET.
 */
export const x402ValidBeforeMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('x402_settlements').addColumn('valid_before', 'bigint').execute();
    await db.schema.alterTable('x402_settlements').addColumn('gas_used', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('x402_settlements').dropColumn('gas_used').execute();
    await db.schema.alterTable('x402_settlements').dropColumn('valid_before').execute();
  },
};
