import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAccountKey, receiveAddress } from '../../../core/btc/account-key.ts';
import { BIP84_ZPUB, postJson, startTestListener } from '../../helpers/listener.ts';
import { testDatabases } from '../../helpers/databases.ts';

const key = parseAccountKey(BIP84_ZPUB);

for (const database of testDatabases) {
  describe(`child index allocation on ${database.name}`, { skip: database.skip }, () => {
    it('200 concurrent POST /invoice get 200 distinct consecutive indexes, and a restart continues', async () => {
      const store = await database.create();
      try {
        const first = await startTestListener({ env: { DATABASE_URL: store.url } });
        const results = await Promise.all(
          Array.from({ length: 200 }, () => postJson(`${first.url}/invoice`, { amount_sats: 1000 })),
        );
        await first.stop();
        assert.ok(results.every((r) => r.status === 201), results.find((r) => r.status !== 201)?.text);
        const indexes = results.map((r) => r.json.child_index as number).sort((a, b) => a - b);
        assert.deepEqual(indexes, Array.from({ length: 200 }, (_, i) => i));
        for (const result of results) {
          // Every address is the one its index derives to, whichever path (buffer or inline) served it.
          assert.equal(result.json.receive_address, receiveAddress(key, result.json.child_index));
        }
        assert.equal(new Set(results.map((r) => r.json.invoice_id)).size, 200);

        const second = await startTestListener({ env: { DATABASE_URL: store.url } });
        const next = await postJson(`${second.url}/invoice`, { amount_sats: 1000 });
        await second.stop();
        assert.equal(next.json.child_index, 200);
        assert.equal(next.json.receive_address, receiveAddress(key, 200));
      } finally {
        await store.drop();
      }
    });
  });
}
