import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultChains } from '../../core/chains/default-chains.ts';
import { loadCloudConfig } from '../../cloud/cloud-config.ts';
import { ConfigError } from '../../edge/settings.ts';

/** The fair-share settings as Cloud reads them: defaults, a plan left out keeps its own, bad text refused by name. */
describe('Cloud fair-share settings', () => {
  it('defaults: a 20 % reserve, Free far below the instance totals', () => {
    assert.deepEqual(loadCloudConfig({}, defaultChains).fairShares, {
      reservePercent: 20,
      mcpSessions: { free: 10, starter: 50, pro: 100 },
      checkoutStreams: { free: 25, starter: 100, pro: 250 },
      x402PerMinute: { free: 60, starter: 300, pro: 600 },
    });
  });

  it('a plan left out keeps its default; spaces are allowed', () => {
    const config = loadCloudConfig({ CLOUD_MCP_SESSIONS_PER_PLAN: 'free:2, pro:40', CLOUD_FAIR_SHARE_RESERVE: '0' }, defaultChains);
    assert.deepEqual(config.fairShares.mcpSessions, { free: 2, starter: 50, pro: 40 });
    assert.equal(config.fairShares.reservePercent, 0);
  });

  const refused: [string, Record<string, string>][] = [
    ['an unknown plan', { CLOUD_MCP_SESSIONS_PER_PLAN: 'gold:5' }],
    ['a plan twice', { CLOUD_CHECKOUT_STREAMS_PER_PLAN: 'free:1,free:2' }],
    ['zero', { CLOUD_X402_RATE_PER_PLAN: 'free:0' }],
    ['not a number', { CLOUD_X402_RATE_PER_PLAN: 'free:ten' }],
    ['a reserve over 90 %', { CLOUD_FAIR_SHARE_RESERVE: '95' }],
  ];
  for (const [why, env] of refused) {
    it(`refuses ${why}, naming the setting`, () => {
      const [name] = Object.keys(env);
      assert.throws(() => loadCloudConfig(env, defaultChains), (error: unknown) => error instanceof ConfigError && error.problems.length === 1 && error.problems[0]!.startsWith(name!));
    });
  }
});
