import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestListener } from '../helpers/listener.ts';
import { signupMerchant, startTestCloud } from '../helpers/cloud.ts';
import { testDatabases } from '../helpers/databases.ts';
import { testAccountKey } from '../helpers/btc-chain.ts';
import { startCredentialProxy } from '../helpers/credential-proxy.ts';
import { answerConsent, registerPublicClient } from '../helpers/oauth.ts';
import { releasedPort } from '../helpers/ports.ts';
import { compareWithBaseline, readExpectedFailures, runSuite, tally, type SuiteRun } from '../helpers/conformance.ts';

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against both
 * editions: the MCP server scenarios of each revision's requirement set (2025-11-25, stateful;
 * 2026-07-28, stateless), through a proxy that adds the
 * credential as a configured agent host would, and the authorization-server scenarios against each
 * edition's OAuth server, the consent answered as a person would. Checks that need the suite's own
 * fixtures are listed, with their reasons, in test/mcp/conformance/expected-failures-<revision>.yml.
 */

const REVISIONS = ['2025-11-25', '2026-07-28'] as const;
const SUITE_TIMEOUT_MS = 120_000;
const baselineOf = (revision: string) => fileURLToPath(new URL(`./conformance/expected-failures-${revision}.yml`, import.meta.url));

const nodeMajor = Number(process.versions.node.split('.')[0]);
const skip = nodeMajor < 22 ? `the MCP conformance suite needs Node 22; it runs in the Node 22 pass of .ci/run (this is Node ${process.versions.node})` : undefined;

interface Edition {
  name: string;
  /** The MCP endpoint, as a host reaches it (the credential is added on the way). */
  mcpUrl: string;
  /** The MCP endpoint itself, the `resource` its tokens are for. */
  resource: string;
  issuer: string;
  /** What the person types on the consent page. */
  key: string;
  stop(): Promise<void>;
}

const LISTENER_KEY = 'conformance-listener-key-0123456789';
// The suite starts about forty sessions within seconds from one credential; MCP_INITIALIZE_RATE_LIMIT
// would refuse them (its bound is tested in mcp-session-bounds), so it is off here.
const suiteEnv = { MCP_INITIALIZE_RATE_LIMIT: 'off' };

async function startListenerEdition(): Promise<Edition> {
  const listener = await startTestListener({ env: { SERVICE_API_KEY: LISTENER_KEY, ...suiteEnv } });
  const proxy = await startCredentialProxy(listener.url, LISTENER_KEY);
  return {
    name: 'listener (SQLite)',
    mcpUrl: `${proxy.url}/mcp`,
    resource: `${listener.url}/mcp`,
    issuer: listener.url,
    key: LISTENER_KEY,
    async stop() {
      await proxy.close();
      await listener.stop();
    },
  };
}

async function startCloudEdition(): Promise<Edition> {
  const database = testDatabases.find((one) => one.name === 'postgres' && !one.skip) ?? testDatabases.find((one) => one.name === 'sqlite')!;
  const created = await database.create();
  // Its one Free merchant would meet the Free plan's session cap (10) long before the suite's forty
  // sessions; the plans' caps are tested in cloud-fair-shares, so Free gets the per-owner bound here.
  const cloud = await startTestCloud({ env: { DATABASE_URL: created.url, ...suiteEnv, CLOUD_MCP_SESSIONS_PER_PLAN: 'free:100' } });
  const merchant = await signupMerchant(cloud.url, { btc_xpub: testAccountKey(31) });
  const proxy = await startCredentialProxy(cloud.url, merchant.api_key);
  return {
    name: `Cloud (${database.name})`,
    mcpUrl: `${proxy.url}/api/v1/mcp`,
    resource: `${cloud.url}/api/v1/mcp`,
    issuer: cloud.url,
    key: merchant.api_key,
    async stop() {
      await proxy.close();
      await cloud.stop();
      await created.drop();
    },
  };
}

/** The problem, then the suite's own summary (per scenario, its baseline verdict), or all it printed when it got no further. */
const report = (run: SuiteRun, problem: string) => {
  const summary = run.output.indexOf('=== SUMMARY ===');
  return `${problem}\n\nThe suite's own output${summary > 0 ? ' (its summary)' : ''}:\n${summary > 0 ? run.output.slice(summary) : run.output}`;
};

for (const start of [startListenerEdition, startCloudEdition]) {
  describe(`MCP conformance suite: ${start === startListenerEdition ? 'listener' : 'Cloud'}`, { skip }, () => {
    let edition: Edition;
    before(async () => {
      edition = await start();
    });
    after(async () => {
      await edition?.stop();
    });

    for (const revision of REVISIONS) {
      test(`server scenarios of the ${revision} requirement set: every failure expected, no stale entry`, async (t) => {
        const baseline = baselineOf(revision);
        const began = performance.now();
        const run = await runSuite(['server', '--url', edition.mcpUrl, '--requirements', revision, '--expected-failures', baseline], mkdtempSync(join(tmpdir(), 'conformance-')), { timeoutMs: SUITE_TIMEOUT_MS });
        const { unexpected, stale } = compareWithBaseline(run.checks, readExpectedFailures(baseline));
        t.diagnostic(`${edition.name}, ${revision}: ${JSON.stringify(tally(run.checks))}, ${Math.round(performance.now() - began)} ms`);
        assert.ok(run.checks.length > 0, report(run, 'the suite ran no scenario'));
        const problems = [...unexpected.map((check) => `failed, not in ${baseline}: ${check}`), ...stale.map((entry) => `in ${baseline} but passed (remove it): ${entry}`)];
        assert.deepEqual(problems, [], report(run, problems.join('\n')));
        assert.equal(run.code, 0, report(run, 'the suite failed the run'));
      });
    }

    test('authorization-server scenarios: metadata, and a code grant with PKCE through the consent page', async (t) => {
      const port = await releasedPort();
      const redirectUri = `http://127.0.0.1:${port}/callback`;
      const clientId = await registerPublicClient(edition.issuer, 'MCP conformance suite', redirectUri);
      const authorizePrefix = `${edition.issuer}/oauth/authorize?`;
      let consent: Promise<void> | undefined;
      // A consent that fails stops the suite, which would otherwise wait minutes for its callback.
      const stop = new AbortController();
      const began = performance.now();
      const run = await runSuite(
        ['authorization', '--url', edition.issuer, '--client-id', clientId, '--resource', edition.resource, '--port', String(port)],
        mkdtempSync(join(tmpdir(), 'conformance-')),
        {
          timeoutMs: SUITE_TIMEOUT_MS,
          signal: stop.signal,
          // The suite prints the URL a person would open and waits on its redirect URI: approve with the
          // key, then deliver the redirect (code, state, iss) to the suite's callback.
          onLine: (line) => {
            if (!line.startsWith(authorizePrefix)) return;
            consent = (async () => {
              const { redirect } = await answerConsent(new URL(line.trim()), edition.key, 'approve');
              assert.ok(redirect.href.startsWith(redirectUri), `the consent did not end on the suite's redirect URI: ${redirect.href}`);
              await (await fetch(redirect)).text();
            })();
            consent.catch(() => stop.abort()); // and awaited below, which reports its failure

          },
        },
      ).catch(async (error: unknown) => {
        await consent;
        throw error;
      });
      t.diagnostic(`${edition.name}, authorization: ${JSON.stringify(tally(run.checks))}, ${Math.round(performance.now() - began)} ms`);
      assert.ok(consent, report(run, 'the suite never printed an authorization URL'));
      await consent;
      const notPassed = run.checks.filter((check) => check.status !== 'SUCCESS').map((check) => `${check.scenario}:${check.id} ${check.status}: ${check.errorMessage ?? ''}`);
      assert.deepEqual(notPassed, [], report(run, 'authorization checks that did not pass'));
      assert.deepEqual(run.checks.map((check) => check.id).sort(), ['authorization-code-grant', 'authorization-server-metadata', 'authorization-server-metadata-cimd'], report(run, 'checks missing'));
      assert.equal(run.code, 0, report(run, 'the suite failed the run'));
    });
  });
}
