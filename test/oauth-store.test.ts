import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { manualClock } from '../core/clock.ts';
import { createOAuthStore } from '../core/oauth/oauth-store.ts';
import { testDatabases, withFreshDatabase } from './support/databases.ts';

for (const database of testDatabases) {
  describe(`OAuth store (${database.name})`, { skip: database.skip }, () => {
    test('ids are stored hashed, expired rows are absent and swept, revoking a grant removes its tokens', () =>
      withFreshDatabase(database, async (db) => {
        const clock = manualClock(Date.UTC(2026, 10, 25));
        const store = createOAuthStore(db, clock);
        const tokens = store.adapterFor('AccessToken');
        const token = 'tok_0123456789abcdefghijklmnopqrstuvwxyzABCDE';
        await tokens.upsert(token, { jti: token, grantId: 'g1', accountId: 'listener', clientId: 'c1', scope: 'invoices:read' }, 60);
        await store.adapterFor('Grant').upsert('g1', { jti: 'g1', accountId: 'listener', clientId: 'c1', resources: { 'http://x/mcp': 'invoices:read' } }, 3600);

        // Nothing stored reveals the token: its row is keyed by its SHA-256 and the payload has no jti.
        const rows = await db.selectFrom('oauth_records').selectAll().execute();
        assert.ok(!JSON.stringify(rows).includes(token));
        assert.ok(rows.some((r) => r.id_hash === createHash('sha256').update(token).digest('hex')));
        assert.deepEqual(await tokens.find(token), { grantId: 'g1', accountId: 'listener', clientId: 'c1', scope: 'invoices:read', jti: token });

        await tokens.consume(token);
        assert.equal((await tokens.find(token))!.consumed, Math.floor(clock.now() / 1000));

        clock.advance(61_000);
        assert.equal(await tokens.find(token), undefined, 'expired: absent');
        assert.equal(await store.sweep(), 1);
        assert.equal((await db.selectFrom('oauth_records').select('model').execute()).length, 1, 'the grant stays');

        await tokens.upsert(token, { jti: token, grantId: 'g1' }, 60);
        assert.deepEqual((await store.connectedApps('listener')).map((a) => [a.grantId, a.scopes]), [['g1', ['invoices:read']]]);
        assert.equal(await store.revokeGrant('someone-else', 'g1'), false);
        assert.equal(await store.revokeGrant('listener', 'g1'), true);
        assert.equal(await tokens.find(token), undefined);
        assert.deepEqual(await store.connectedApps('listener'), []);

        // A shared secret: the first instance makes it, every other reads the same.
        const first = await store.sharedSecret('cookie-key');
        assert.equal(await createOAuthStore(db, clock).sharedSecret('cookie-key'), first);
      }));
  });
}
