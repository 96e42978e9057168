import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { cloudClaimScope } from '../../cloud/invoices/webhook-delivery.ts';
import { testDatabases } from '../helpers/databases.ts';

test("Cloud's webhook claim lists the merchants with a webhook URL from an index, not by reading every account (SQLite plan)", async () => {
  const created = await testDatabases[0].create();
  const database = await created.openCloud();
  try {
    if (!('merchantsSelectedBy' in cloudClaimScope)) throw new Error('Cloud claims by a merchant query');
    const merchants = cloudClaimScope.merchantsSelectedBy(database.db).compile();
    const plan = await sql<{ detail: string }>`explain query plan ${sql.raw(merchants.sql)}`.execute(database.db);
    const details = plan.rows.map((row) => row.detail).join('\n');
    assert.match(details, /USING COVERING INDEX cloud_merchants_webhook/);
    assert.doesNotMatch(details, /SCAN cloud_merchants/);
  } finally {
    await database.close();
  }
});
