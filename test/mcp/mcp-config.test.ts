import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_LISTENER_URL, loadMcpConfig } from '../../mcp/config.ts';

test('defaults to the listener default address with no key', () => {
  assert.deepEqual(loadMcpConfig({}), { ok: true, config: { listenerUrl: DEFAULT_LISTENER_URL, apiKey: undefined } });
  assert.equal(DEFAULT_LISTENER_URL, 'http://127.0.0.1:8787');
});

test('an empty LISTENER_URL or SERVICE_API_KEY counts as unset', () => {
  assert.deepEqual(loadMcpConfig({ LISTENER_URL: '', SERVICE_API_KEY: '' }), {
    ok: true,
    config: { listenerUrl: DEFAULT_LISTENER_URL, apiKey: undefined },
  });
});

test('keeps a Cloud base path and drops trailing slashes, so paths join as /api/v1/invoice', () => {
  const loaded = loadMcpConfig({ LISTENER_URL: 'https://pay.example.com/api/v1/', SERVICE_API_KEY: 'k' });
  assert.deepEqual(loaded, { ok: true, config: { listenerUrl: 'https://pay.example.com/api/v1', apiKey: 'k' } });
});

test('refuses a LISTENER_URL that is not http(s), naming the variable but never echoing the key', () => {
  for (const url of ['127.0.0.1:8787', 'ftp://host/', 'not a url']) {
    const loaded = loadMcpConfig({ LISTENER_URL: url, SERVICE_API_KEY: 'secret-key-value' });
    assert.equal(loaded.ok, false, url);
    if (loaded.ok) continue;
    assert.match(loaded.problems.join('\n'), /^LISTENER_URL: /);
    assert.ok(!loaded.problems.join('\n').includes('secret-key-value'));
  }
});
