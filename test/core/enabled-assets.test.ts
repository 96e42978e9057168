import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Health } from '../../shared/index.ts';
import { startTestListener } from '../helpers/listener.ts';

async function enabledAssets(env: Record<string, string>) {
  const listener = await startTestListener({ env });
  try {
    return Health.parse(await (await fetch(`${listener.url}/health`)).json()).enabled_assets;
  } finally {
    await listener.stop();
  }
}

test('/health lists btc in enabled_assets exactly when a Bitcoin key is configured', async () => {
  assert.deepEqual(await enabledAssets({}), ['btc']);
  assert.deepEqual(await enabledAssets({ MERCHANT_BTC_XPUB: '' }), []);
});
