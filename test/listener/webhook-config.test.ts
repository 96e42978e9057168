import { defaultChains } from '../../core/chains/default-chains.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig } from '../../listener/config.ts';
import { ConfigError } from '../../edge/settings.ts';

const secret = 'whsec_config_test_secret';

describe('webhook settings', () => {
  for (const url of ['https://shop.example/hooks', 'http://localhost:9876/webhook', 'http://127.0.0.1:9876/webhook', 'http://[::1]:9876/webhook']) {
    it(`accepts ${url}`, () => {
      assert.deepEqual(loadConfig({ MERCHANT_WEBHOOK_URL: url, MERCHANT_WEBHOOK_SECRET: secret }, defaultChains).webhook, { url, secret });
    });
  }

  for (const url of ['http://shop.example/hooks', 'http://10.0.0.5/hook', 'http://127.0.0.1.nip.io/hook', 'ftp://shop.example/hook']) {
    it(`refuses ${url}`, () => {
      assert.throws(
        () => loadConfig({ MERCHANT_WEBHOOK_URL: url, MERCHANT_WEBHOOK_SECRET: secret }, defaultChains),
        (error: unknown) => error instanceof ConfigError && error.problems.some((p) => p.startsWith('MERCHANT_WEBHOOK_URL must be https')),
      );
    });
  }

  it('refuses a URL without a secret', () => {
    assert.throws(() => loadConfig({ MERCHANT_WEBHOOK_URL: 'https://shop.example/hooks' }, defaultChains), /MERCHANT_WEBHOOK_SECRET is not/);
  });

  it('takes SERVICE_WEBHOOK_SECRET as an alias; MERCHANT_WEBHOOK_SECRET wins when both are set', () => {
    const url = 'https://shop.example/hooks';
    assert.equal(loadConfig({ MERCHANT_WEBHOOK_URL: url, SERVICE_WEBHOOK_SECRET: 'whsec_alias' }, defaultChains).webhook?.secret, 'whsec_alias');
    assert.equal(
      loadConfig({ MERCHANT_WEBHOOK_URL: url, SERVICE_WEBHOOK_SECRET: 'whsec_alias', MERCHANT_WEBHOOK_SECRET: secret }, defaultChains).webhook?.secret,
      secret,
    );
  });

  it('without a URL, sends nothing', () => {
    assert.equal(loadConfig({ MERCHANT_WEBHOOK_SECRET: secret }, defaultChains).webhook, null);
  });
});
