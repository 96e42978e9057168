import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { manualClock } from '../../../core/clock.ts';
import { CONSUMED_KEPT_MS } from '../../../core/oauth/oauth-adapter.ts';
import { createOAuthStore, revokeGrantsApprovedWith, UNUSED_CLIENT_TTL_MS } from '../../../core/oauth/oauth-store.ts';
import { testDatabases, withFreshDatabase } from '../../helpers/databases.ts';

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

    test('a consumed refresh token is kept a day (its reuse still caught), then swept; an unconsumed one lives its 30 days', () =>
      withFreshDatabase(database, async (db) => {
        const clock = manualClock(Date.UTC(2026, 10, 25));
        const store = createOAuthStore(db, clock);
        const tokens = store.adapterFor('RefreshToken');
        await tokens.upsert('rt-spent', { jti: 'rt-spent', grantId: 'g1' }, 30 * 86_400);
        await tokens.upsert('rt-live', { jti: 'rt-live', grantId: 'g1' }, 30 * 86_400);
        await tokens.consume('rt-spent');
        clock.advance(CONSUMED_KEPT_MS - 1);
        assert.ok((await tokens.find('rt-spent'))!.consumed, 'still there, marked consumed: a reuse is recognised');
        clock.advance(1);
        assert.equal(await tokens.find('rt-spent'), undefined);
        assert.equal(await store.sweep(), 1);
        assert.ok(await tokens.find('rt-live'));
      }));

    test('registered clients holding no grant are deleted once a day old; a client with a grant stays', () =>
      withFreshDatabase(database, async (db) => {
        const T0 = Date.UTC(2026, 10, 25);
        const clock = manualClock(T0);
        const store = createOAuthStore(db, clock);
        const clients = store.adapterFor('Client');
        await clients.upsert('c-never', { client_id: 'c-never', client_name: 'never approved' });
        await clients.upsert('c-approved', { client_id: 'c-approved', client_name: 'approved' });
        await store.adapterFor('Grant').upsert('g1', { jti: 'g1', accountId: 'listener', clientId: 'c-approved' }, 30 * 86_400);
        clock.advance(23 * 3600_000);
        await clients.upsert('c-young', { client_id: 'c-young' });
        const clientIds = async () => (await db.selectFrom('oauth_records').select('client_id').where('model', '=', 'Client').orderBy('client_id').execute()).map((r) => r.client_id);

        assert.equal(await store.sweep(), 0, 'nothing is a day old yet');
        clock.set(T0 + UNUSED_CLIENT_TTL_MS);
        assert.equal(await store.sweep(), 1);
        assert.deepEqual(await clientIds(), ['c-approved', 'c-young']);
        assert.equal(await clients.find('c-never'), undefined);
        clock.set(T0 + 23 * 3600_000 + UNUSED_CLIENT_TTL_MS);
        assert.equal(await store.sweep(), 1);
        assert.deepEqual(await clientIds(), ['c-approved']);
        // Its grant revoked, the approved client is swept too (a day after it registered).
        assert.equal(await store.revokeGrant('listener', 'g1'), true);
        assert.equal(await store.sweep(), 1);
        assert.deepEqual(await clientIds(), []);
      }));

    test('grants record their key: the key id is read back; grants of a key, or of any other key, are revoked with their tokens', () =>
      withFreshDatabase(database, async (db) => {
        const clock = manualClock(Date.UTC(2026, 10, 25));
        const store = createOAuthStore(db, clock);
        const grants = store.adapterFor('Grant');
        const tokens = store.adapterFor('RefreshToken');
        for (const [grantId, keyId] of [['g-a', 'key-a'], ['g-b', 'key-b'], ['g-old', null]] as const) {
          await grants.upsert(grantId, { jti: grantId, accountId: 'm1', clientId: 'c1' }, 3600);
          await tokens.upsert(`rt-${grantId}`, { jti: `rt-${grantId}`, grantId, accountId: 'm1', clientId: 'c1' }, 3600);
          if (keyId) await store.noteGrant(grantId, { keyId, clientName: 'Agent' });
        }
        assert.equal(await store.keyOfGrant('g-a'), 'key-a');
        assert.equal(await store.keyOfGrant('g-old'), null, 'a grant from before keys were recorded has none');
        assert.equal(await store.keyOfGrant('nope'), null);
        assert.equal((await store.connectedApps('m1'))[0]!.clientName, 'Agent');

        assert.equal(await revokeGrantsApprovedWith(db, 'key-a'), 1);
        assert.equal(await tokens.find('rt-g-a'), undefined);
        assert.ok(await tokens.find('rt-g-b'));
        assert.equal(await store.revokeGrantsNotApprovedWith('key-b'), 1, 'the grant with no key recorded');
        assert.equal(await tokens.find('rt-g-old'), undefined);
        assert.deepEqual((await store.connectedApps('m1')).map((a) => a.grantId), ['g-b']);

        // A key's fingerprint is stable for one database and never the key itself.
        const fingerprint = await store.keyFingerprint('a weak key');
        assert.equal(await createOAuthStore(db, clock).keyFingerprint('a weak key'), fingerprint);
        assert.notEqual(await store.keyFingerprint('another key'), fingerprint);
        assert.ok(!fingerprint.includes('weak'));
      }));
  });
}
