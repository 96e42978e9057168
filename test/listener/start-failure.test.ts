import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BIP84_ZPUB, NO_CHAIN_ESPLORA_URL } from '../helpers/listener.ts';
import { runCli } from '../helpers/process.ts';

/**
 * A start that fails, fails whole: the real `service start` on a port something else holds ends
 * at once with status 1 and one line naming the port and the setting, before the database is
 * opened, so before webhook delivery, a chain watcher or the leader election could start.
 */
describe('service start on a port that cannot be bound', () => {
  let holder: Server;
  let port: number;
  before(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as { port: number }).port;
  });
  after(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  const editions: { name: string; args: string[]; env: Record<string, string> }[] = [
    { name: 'listener', args: ['start'], env: { MERCHANT_BTC_XPUB: BIP84_ZPUB, BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL, MERCHANT_WEBHOOK_URL: 'https://hooks.example.com/w', MERCHANT_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' } },
    { name: 'Cloud', args: ['start', '--cloud'], env: { BTC_ESPLORA_URL: NO_CHAIN_ESPLORA_URL, CLOUD_CHECKOUT_BASE_URL: 'https://pay.example.com' } },
  ];

  for (const edition of editions) {
    test(`${edition.name}: a port in use ends it with status 1 and one line naming the port and PORT; no database, no log line of anything started`, async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'start-failure-'));
      const database = join(cwd, 'service.db');
      const finished = await runCli(edition.args, {
        cwd,
        env: { ...edition.env, PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${database}`, NODE_ENV: 'production', SERVICE_API_KEY: 'sk_start_failure_test_key_0123456789' },
        timeoutMs: 60_000,
      });
      assert.equal(finished.code, 1, `ended by itself with status 1, not killed by the test's limit: ${finished.stderr}`);
      const lines = finished.stderr.trim().split('\n');
      assert.equal(lines.length, 1, finished.stderr);
      assert.match(lines[0]!, new RegExp(`127\\.0\\.0\\.1:${port}`));
      assert.match(lines[0]!, /already in use/);
      assert.match(lines[0]!, /Set PORT to a free port/);
      assert.equal(finished.stdout, '', 'nothing logged: no database, watcher, delivery or leader started');
      assert.equal(existsSync(database), false, 'the database was never opened');
      assert.deepEqual(readdirSync(cwd), [], 'nothing written at all');
    });
  }

  test('the sandbox: its chain port in use ends it the same way, naming SANDBOX_CHAIN_PORT', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'start-failure-'));
    const finished = await runCli(['start'], { cwd, env: { SANDBOX_CHAIN_PORT: String(port), PORT: '0' }, timeoutMs: 60_000 });
    assert.equal(finished.code, 1, finished.stderr);
    const lines = finished.stderr.trim().split('\n');
    assert.equal(lines.length, 1, finished.stderr);
    assert.match(lines[0]!, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: the port is already in use .*Set SANDBOX_CHAIN_PORT to a free port`));
  });

  test('an address that is not this machine\'s ends it the same way, naming HOST', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'start-failure-'));
    const finished = await runCli(['start'], {
      cwd,
      env: { ...editions[0]!.env, PORT: '0', HOST: '192.0.2.1', DATABASE_URL: `sqlite:${join(cwd, 'service.db')}` },
      timeoutMs: 60_000,
    });
    assert.equal(finished.code, 1, finished.stderr);
    const lines = finished.stderr.trim().split('\n');
    assert.equal(lines.length, 1, finished.stderr);
    assert.match(lines[0]!, /Cannot listen on 192\.0\.2\.1:0: .*Set HOST to/);
    assert.deepEqual(readdirSync(cwd), []);
  });
});
