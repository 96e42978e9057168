import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openCoreDatabase } from '../../core/schema.ts';
import { enqueueEvent } from '../../core/events/outbox.ts';
import { runCli } from '../helpers/process.ts';

const merchantId = 'm_cli';

describe('service deliveries (real process)', () => {
  let dir: string;
  let failedId: string;
  let queuedId: string;
  const env = () => ({ DATABASE_URL: `sqlite:${join(dir, 'service.db')}`, MERCHANT_ID: merchantId });
  const run = async (...args: string[]) => {
    const { code, stdout, stderr } = await runCli(['deliveries', ...args], { env: env() });
    return { code, out: stdout, err: stderr };
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'deliveries-cli-'));
    const { db, close } = await openCoreDatabase(env().DATABASE_URL, defaultChains);
    const payload = {
      event: 'payment.orphan' as const,
      chain: 'base' as const,
      asset: 'USDC',
      token_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      address: '0x1111111111111111111111111111111111111111',
      tx_hash: `0x${'ab'.repeat(32)}`,
      value: '1.000001',
      detected_at: '2026-01-01T00:00:00.000Z',
    };
    failedId = await enqueueEvent(db, { merchantId, payload, createdAt: 1 });
    queuedId = await enqueueEvent(db, { merchantId, payload, createdAt: 2 });
    await db
      .updateTable('events')
      .set({ delivery_status: 'failed', delivery_attempts: 10, last_http_status: 500, last_error: 'HTTP 500', last_attempt_at: 3 })
      .where('event_id', '=', failedId)
      .execute();
    await close();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('lists pending and failed deliveries with their last result', async () => {
    const { code, out } = await run();
    assert.equal(code, 0);
    const lines = out.trim().split('\n');
    assert.match(lines[0], /^EVENT ID\s+TYPE\s+STATE\s+ATTEMPTS\s+LAST RESULT/);
    assert.match(lines[1], new RegExp(`^${failedId}\\s+payment\\.orphan\\s+failed\\s+10\\s+HTTP 500`));
    assert.match(lines[2], new RegExp(`^${queuedId}\\s+payment\\.orphan\\s+queued\\s+0\\s+-`));
  });

  it('re-sends all failed ones as new attempts of the same event id', async () => {
    const { code, out } = await run('resend', '--all-failed');
    assert.equal(code, 0);
    assert.equal(out, `Queued for re-send: ${failedId}\n`);
    const { db, close } = await openCoreDatabase(env().DATABASE_URL, defaultChains);
    const row = await db.selectFrom('events').select(['delivery_status', 'delivery_attempts', 'delivery_max_attempts']).where('event_id', '=', failedId).executeTakeFirstOrThrow();
    await close();
    assert.deepEqual(row, { delivery_status: 'pending', delivery_attempts: 10, delivery_max_attempts: 11 });
  });

  it('refuses resend without a target, and an unknown event id', async () => {
    assert.equal((await run('resend')).code, 2);
    const unknown = await run('resend', 'evt_nope');
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /evt_nope: no failed or delivered event/);
  });
});
