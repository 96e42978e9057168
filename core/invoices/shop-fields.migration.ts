import type { Kysely, Migration } from 'kysely';

/**
 * What a shop attaches to an invoice and how a fiat price became the asset amount: the order
 * reference, free metadata (JSON text), the return link, and the price, rate, the sources that
 * set the rate (JSON text) and when. All null on invoices created before, and on invoices priced
 * in the asset's own unit.
 */
export const invoiceShopFieldsMigration: Migration = {
  async up(db: Kysely<any>) {
    for (const column of ['order_id', 'metadata', 'redirect_url', 'price_amount', 'price_currency', 'rate', 'rate_sources']) {
      await db.schema.alterTable('invoices').addColumn(column, 'text').execute();
    }
    await db.schema.alterTable('invoices').addColumn('rate_at', 'bigint').execute();
    await db.schema.createIndex('invoices_merchant_order').on('invoices').columns(['merchant_id', 'order_id']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('invoices_merchant_order').execute();
    for (const column of ['rate_at', 'rate_sources', 'rate', 'price_currency', 'price_amount', 'redirect_url', 'metadata', 'order_id']) {
      await db.schema.alterTable('invoices').dropColumn(column).execute();
    }
  },
};
