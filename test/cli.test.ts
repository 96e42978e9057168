import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { describe, it } from 'node:test';
import { BIP84_ZPUB, postJson, tempSqliteUrl } from './support/listener.ts';
import { runCli, spawnListener } from './support/process.ts';

const ZPRV = 'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';

describe('service CLI', () => {
  it('--help lists the commands, and every command has --help', async () => {
    const top = await runCli(['--help']);
    assert.equal(top.code, 0);
    for (const name of ['start', 'init', 'healthcheck']) {
      assert.match(top.stdout, new RegExp(`^  ${name}\\b`, 'm'));
      const help = await runCli([name, '--help']);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`^Usage: service ${name}`));
    }
    const unknown = await runCli(['frobnicate']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /Unknown command "frobnicate"/);
  });

  it('init makes a strong key and a whsec_ secret, and never overwrites one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'init-'));
    const first = await runCli(['init'], { cwd: dir });
    assert.equal(first.code, 0, first.stderr);
    const env = parseEnv(readFileSync(join(dir, '.env'), 'utf8'));
    assert.match(env.SERVICE_API_KEY ?? '', /^sk_[A-Za-z0-9_-]{43}$/);
    assert.match(env.MERCHANT_WEBHOOK_SECRET ?? '', /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.ok(first.stdout.includes(env.SERVICE_API_KEY!), 'printed once');

    writeFileSync(join(dir, '.env'), `PORT=9000\nSERVICE_API_KEY=${env.SERVICE_API_KEY}`);
    const second = await runCli(['init'], { cwd: dir });
    const after = parseEnv(readFileSync(join(dir, '.env'), 'utf8'));
    assert.equal(after.SERVICE_API_KEY, env.SERVICE_API_KEY, 'existing key kept');
    assert.equal(after.PORT, '9000');
    assert.match(after.MERCHANT_WEBHOOK_SECRET ?? '', /^whsec_/);
    assert.notEqual(after.MERCHANT_WEBHOOK_SECRET, env.MERCHANT_WEBHOOK_SECRET);
    assert.ok(!second.stdout.includes(env.SERVICE_API_KEY!), 'an existing key is not printed again');
  });

  it('start refuses an extended private key with a clear message that does not echo it', async () => {
    const result = await runCli(['start'], { env: { MERCHANT_BTC_XPUB: ZPRV, DATABASE_URL: tempSqliteUrl() }, cwd: tmpdir() });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /MERCHANT_BTC_XPUB holds an extended private key/);
    assert.ok(!(result.stdout + result.stderr).includes(ZPRV.slice(4, 30)));
  });

  it('start refuses to run open in production', async () => {
    const result = await runCli(['start'], { env: { NODE_ENV: 'production', DATABASE_URL: tempSqliteUrl() }, cwd: tmpdir() });
    assert.equal(result.code, 1);
    assert.match(result.stderr, /SERVICE_API_KEY must be set when NODE_ENV=production/);
  });

  it('healthcheck exits 0 against a live listener and 1 when it is down; logs carry no secrets', async () => {
    const apiKey = 'sk_live_secret_value_that_must_not_leak';
    const listener = await spawnListener(
      { MERCHANT_BTC_XPUB: BIP84_ZPUB, SERVICE_API_KEY: apiKey, DATABASE_URL: tempSqliteUrl() },
      mkdtempSync(join(tmpdir(), 'hc-')),
    );
    let stopped = false;
    try {
      const healthy = await runCli(['healthcheck', '--url', listener.url]);
      assert.equal(healthy.code, 0, healthy.stdout);
      const created = await postJson(`${listener.url}/invoice`, { amount_sats: 1000 }, { 'X-Service-Api-Key': apiKey });
      assert.equal(created.status, 201);
      await postJson(`${listener.url}/invoice`, { amount_sats: 1000 }, { 'X-Service-Api-Key': 'wrong-key-also-secret' });
      assert.equal(await listener.stop(), 0);
      stopped = true;
      const down = await runCli(['healthcheck', '--url', listener.url, '--timeout', '2000']);
      assert.equal(down.code, 1);

      const logs = listener.output();
      const lines = logs.trim().split('\n');
      for (const line of lines) JSON.parse(line);
      assert.ok(lines.some((l) => /"request_id":"[0-9a-f-]{36}"/.test(l)), 'request lines carry a request id');
      assert.ok(!logs.includes(apiKey));
      assert.ok(!logs.includes(BIP84_ZPUB));
    } finally {
      if (!stopped) await listener.stop();
    }
  });
});
