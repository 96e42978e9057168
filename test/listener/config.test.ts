import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { loadCloudConfig } from '../../cloud/cloud-config.ts';
import { loadConfig } from '../../listener/config.ts';
import { ConfigError, parseRateLimit, readEnvironment } from '../../edge/settings.ts';
import { BIP84_ZPUB } from '../helpers/listener.ts';
import { settingsOf } from '../../core/chain-definition.ts';
import type { BtcListenerSettings, BtcPlatformSettings } from '../../core/btc/btc-runtime.ts';

const btcOf = (config: { chains: Parameters<typeof settingsOf>[0] }) => settingsOf<BtcListenerSettings>(config.chains, 'btc');
const cloudBtcOf = (config: { chains: Parameters<typeof settingsOf>[0] }) => settingsOf<BtcPlatformSettings>(config.chains, 'btc')!;

const ZPRV = 'zprvAdG4iTXWBoARxkkzNpNh8r6Qag3irQB8PzEMkAFeTRXxHpbF9z4QgEvBRmfvqWvGp42t42nvgGpNgYSJA9iefm1yYNZKEm7z6qUWCroSQnE';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, defaultChains);
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  assert.fail('expected a ConfigError');
}

describe('config', () => {
  it('reports every problem at once, each named by its setting with a plain reason and the value given', () => {
    const problems = problemsOf({
      PORT: 'abc',
      BTC_WS_MAX_CONNECTIONS: '0',
      BTC_ESPLORA_SELF_HOSTED: 'yes',
      SERVICE_RATE_LIMIT: '30/min',
      MERCHANT_BTC_XPUB: 'not-a-key',
      SERVICE_API_KEY: 'short-secret',
    });
    assert.deepEqual(problems, [
      'PORT must be a whole number between 0 and 65535 (0 picks a free port), got "abc"',
      'BTC_ESPLORA_SELF_HOSTED must be one of 0, 1, true, false, got "yes"',
      'BTC_WS_MAX_CONNECTIONS must be a whole number between 1 and 100, got "0"',
      // A key's value is never echoed, even a wrong one.
      'SERVICE_API_KEY must be at least 16 characters',
      'MERCHANT_BTC_XPUB is not a valid extended public key (bad base58check or length)',
      'SERVICE_RATE_LIMIT must be "off", "<per client>" or "<per client>,<overall>" per minute, e.g. 30,300',
    ]);
    assert.deepEqual(problemsOf({ PORT: '70000' }), ['PORT must be a whole number between 0 and 65535 (0 picks a free port), got "70000"']);
    assert.deepEqual(problemsOf({ PORT: '80.5' }), ['PORT must be a whole number between 0 and 65535 (0 picks a free port), got "80.5"']);
  });

  it('Cloud reports its problems the same way, all at once', () => {
    let problems: string[] = [];
    try {
      loadCloudConfig({ PORT: 'abc', CLOUD_WATCH: 'maybe', CLOUD_INVOICE_RATE_LIMIT: 'lots', BTC_ESPLORA_URL: 'ftp://x', CLOUD_SIGNUP_RATE_LIMIT: 'x', DATABASE_URL: 'postgres://u:hunter2@db/x?bad' }, defaultChains);
    } catch (error) {
      assert.ok(error instanceof ConfigError);
      problems = error.problems;
    }
    assert.deepEqual(problems, [
      'PORT must be a whole number between 0 and 65535 (0 picks a free port), got "abc"',
      'CLOUD_INVOICE_RATE_LIMIT must be off or a whole number between 1 and 1000000, got "lots"',
      'CLOUD_WATCH must be one of 0, 1, true, false, got "maybe"',
      'BTC_ESPLORA_URL must be an http(s) URL, or several comma-separated, got "ftp://x"',
      'CLOUD_SIGNUP_RATE_LIMIT must be "off", "<per client>" or "<per client>,<overall>" per minute, e.g. 30,300',
    ]);
  });

  it('Cloud: several Esplora sources for every network, checked by the named network; regtest rules refused in production', () => {
    const cloud = loadCloudConfig({ BTC_ESPLORA_URL: 'https://a.example/api, https://b.example/api/', BTC_ESPLORA_NETWORK: 'signet' }, defaultChains);
    assert.deepEqual(cloudBtcOf(cloud).esploraUrls.mainnet, ['https://a.example/api', 'https://b.example/api']);
    assert.equal(cloudBtcOf(cloud).esploraNetwork, 'signet');
    assert.deepEqual(cloudBtcOf(loadCloudConfig({}, defaultChains)).esploraUrls.mainnet, ['https://mempool.space/api', 'https://blockstream.info/api']);
    assert.throws(
      () => loadCloudConfig({ NODE_ENV: 'production', BTC_ESPLORA_URL: 'https://a.example/api', BTC_ESPLORA_NETWORK: 'regtest', DATABASE_URL: 'postgres://db/x' }, defaultChains),
      (error: unknown) => error instanceof ConfigError && error.problems.some((p) => p.startsWith('BTC_ESPLORA_NETWORK=regtest is for a local test chain only')),
    );
  });

  it('has the documented defaults', () => {
    const config = loadConfig({}, defaultChains);
    assert.equal(config.port, 8787);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.databaseUrl, 'sqlite:./data/service.db');
    assert.equal(config.merchantId, 'default');
    assert.deepEqual(config.rateLimit, { perClient: 30, overall: 300 });
    assert.equal(btcOf(config), null);
    assert.equal(config.apiKey, null);
    assert.equal(config.trustProxy, false);
  });

  it('bounds MCP sessions per owner and their starts per owner and address: defaults, forms, refusals', () => {
    for (const config of [loadConfig({}, defaultChains), loadCloudConfig({}, defaultChains)]) {
      assert.equal(config.mcpMaxSessions, 1000);
      assert.equal(config.mcpMaxSessionsPerOwner, 100);
      assert.deepEqual(config.mcpInitializeRateLimit, { perOwner: 60, perAddress: 600 });
    }
    assert.deepEqual(loadConfig({ MCP_INITIALIZE_RATE_LIMIT: '5' }, defaultChains).mcpInitializeRateLimit, { perOwner: 5, perAddress: 50 });
    assert.deepEqual(loadConfig({ MCP_INITIALIZE_RATE_LIMIT: '5,7' }, defaultChains).mcpInitializeRateLimit, { perOwner: 5, perAddress: 7 });
    assert.equal(loadCloudConfig({ MCP_INITIALIZE_RATE_LIMIT: 'off' }, defaultChains).mcpInitializeRateLimit, null);
    assert.deepEqual(problemsOf({ MCP_INITIALIZE_RATE_LIMIT: '0', MCP_MAX_SESSIONS_PER_OWNER: 'many' }), [
      'MCP_MAX_SESSIONS_PER_OWNER must be a whole number between 1 and 100000, got "many"',
      'MCP_INITIALIZE_RATE_LIMIT must be off, <per owner> or <per owner>,<per address> per minute, e.g. 60,600, got "0"',
    ]);
  });

  it('derives the network and explorer from the key', () => {
    const config = loadConfig({ MERCHANT_BTC_XPUB: BIP84_ZPUB }, defaultChains);
    assert.equal(btcOf(config)?.accountKey?.network, 'mainnet');
    assert.equal(btcOf(config)?.explorerUrl, 'https://mempool.space');
    assert.deepEqual(btcOf(config)?.esploraUrls, ['https://mempool.space/api', 'https://blockstream.info/api']);
  });

  it('lists every problem in one error', () => {
    const problems = problemsOf({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      MERCHANT_ID: 'has spaces',
      SERVICE_API_KEY: 'short',
    });
    assert.equal(problems.length, 4);
    for (const name of ['PORT', 'DATABASE_URL', 'MERCHANT_ID', 'SERVICE_API_KEY']) {
      assert.ok(problems.some((p) => p.startsWith(name)), `${name} is named`);
    }
    const later = problemsOf({ MERCHANT_BTC_XPUB: 'nonsense', SERVICE_RATE_LIMIT: 'lots', MERCHANT_WEBHOOK_URL: 'http://example.com/hook' });
    assert.equal(later.length, 3 + 1, later.join('\n'));
  });

  it('refuses an extended private key in any setting and never echoes it', () => {
    for (const name of ['MERCHANT_BTC_XPUB', 'SERVICE_API_KEY', 'MERCHANT_WEBHOOK_SECRET']) {
      const problems = problemsOf({ [name]: ZPRV });
      assert.equal(problems.length, 1);
      assert.match(problems[0], new RegExp(`^${name} holds an extended private key`));
      assert.ok(!problems.join('').includes(ZPRV.slice(4, 40)));
    }
  });

  it('refuses to start open in production', () => {
    assert.match(problemsOf({ NODE_ENV: 'production' })[0], /SERVICE_API_KEY must be set/);
    assert.equal(loadConfig({ NODE_ENV: 'production', SERVICE_API_KEY: 'k'.repeat(32) }, defaultChains).apiKey, 'k'.repeat(32));
  });

  it('parses SERVICE_RATE_LIMIT', () => {
    assert.deepEqual(parseRateLimit('30'), { perClient: 30, overall: 300 });
    assert.deepEqual(parseRateLimit('5,7'), { perClient: 5, overall: 7 });
    assert.equal(parseRateLimit('off'), null);
    assert.throws(() => parseRateLimit('30/min'));
    assert.throws(() => parseRateLimit('0'));
  });

  it('accepts https webhooks and plain http only on loopback, with a secret', () => {
    const secret = { MERCHANT_WEBHOOK_SECRET: 'whsec_abcdefghijklmnop' };
    for (const url of ['https://shop.example/hook', 'http://localhost:9876/webhook', 'http://127.0.0.1/x', 'http://[::1]:9876/webhook']) {
      assert.equal(loadConfig({ MERCHANT_WEBHOOK_URL: url, ...secret }, defaultChains).webhook?.url, url);
    }
    for (const url of ['http://shop.example/hook', 'http://10.0.0.5/hook', 'ftp://localhost/x']) {
      assert.match(problemsOf({ MERCHANT_WEBHOOK_URL: url, ...secret })[0], /MERCHANT_WEBHOOK_URL must be https/);
    }
    assert.match(problemsOf({ MERCHANT_WEBHOOK_URL: 'https://shop.example/hook' })[0], /MERCHANT_WEBHOOK_SECRET is not/);
  });

  it('MCP_STATE_SECRET: at least 32 characters, never echoed; unset is null (a random secret of the process)', () => {
    assert.deepEqual(problemsOf({ MCP_STATE_SECRET: 'short-state-secret' }), ['MCP_STATE_SECRET must be at least 32 characters']);
    assert.equal(loadConfig({}, defaultChains).mcpStateSecret, null);
    assert.equal(loadConfig({ MCP_STATE_SECRET: 'a-state-secret-of-at-least-32-chars' }, defaultChains).mcpStateSecret, 'a-state-secret-of-at-least-32-chars');
    assert.equal(loadCloudConfig({ MCP_STATE_SECRET: 'a-state-secret-of-at-least-32-chars' }, defaultChains).mcpStateSecret, 'a-state-secret-of-at-least-32-chars');
  });

  it('MERCHANT_WEBHOOK_SECRET wins over its alias SERVICE_WEBHOOK_SECRET', () => {
    const url = 'https://shop.example/hook';
    assert.equal(loadConfig({ MERCHANT_WEBHOOK_URL: url, SERVICE_WEBHOOK_SECRET: 'whsec_alias_secret_1' }, defaultChains).webhook?.secret, 'whsec_alias_secret_1');
    assert.equal(
      loadConfig({ MERCHANT_WEBHOOK_URL: url, SERVICE_WEBHOOK_SECRET: 'whsec_alias_secret_1', MERCHANT_WEBHOOK_SECRET: 'whsec_main_secret_2' }, defaultChains).webhook?.secret,
      'whsec_main_secret_2',
    );
  });

  it('reads .env, with the process environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'env-'));
    writeFileSync(join(dir, '.env'), 'PORT=9001\nMERCHANT_ID=from_file\n# comment\n');
    const env = readEnvironment({ PORT: '9002' }, join(dir, '.env'));
    const config = loadConfig(env, defaultChains);
    assert.equal(config.port, 9002);
    assert.equal(config.merchantId, 'from_file');
  });
});
