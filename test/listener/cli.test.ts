import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseEnv } from 'node:util';
import { describe, it } from 'node:test';
import { BIP84_ZPUB, postJson, tempSqliteUrl } from '../helpers/listener.ts';
import { releasedPort } from '../helpers/ports.ts';
import { runCli, spawnListener } from '../helpers/process.ts';
import { API_VERSION, CONTRACT_VERSION } from '../../shared/version.ts';
import { topLevelSources } from '../../bin/top-level.js';
import { repoRoot } from '../helpers/child.ts';

/** A module hook that names on stderr each file the process loads ("loaded file:///…"). */
const LIST_LOADED_MODULES = `data:text/javascript,${encodeURIComponent(
  `import { register } from 'node:module'; register(${JSON.stringify(
    `data:text/javascript,${encodeURIComponent("import { writeSync } from 'node:fs'; export async function load(url, context, next) { if (url.startsWith('file:')) writeSync(2, 'loaded ' + url + '\\n'); return next(url, context); }")}`,
  )});`,
)}`;
/** The files a run listed with LIST_LOADED_MODULES, relative to the repository. */
const loadedFiles = (stderr: string) => [...stderr.matchAll(/^loaded (file:\S+)$/gm)].map((match) => relative(repoRoot, fileURLToPath(match[1]!)));

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

  it('--version and -v print the release (the package version), then the interface and contract versions', async () => {
    const release = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    for (const flag of ['--version', '-v']) {
      const result = await runCli([flag]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, `service ${release} (interface ${API_VERSION}, contract ${CONTRACT_VERSION})\n`);
    }
  });

  it('--version, --help and start --help load only the CLI\'s top level: no package, none of the application', async () => {
    for (const args of [['--version'], ['--help'], []]) {
      const result = await runCli(args, { nodeArgs: ['--import', LIST_LOADED_MODULES] });
      const loaded = loadedFiles(result.stderr);
      const compiled = loaded.filter((file) => file.startsWith('dist/')).map((file) => file.slice('dist/'.length).replace(/\.js$/, '.ts'));
      assert.ok(compiled.includes('listener/cli/index.ts'), `the compiled CLI ran: ${loaded.join(', ')}`);
      // bin/service.js checks only these sources before it runs them: one loaded but not listed could run stale.
      assert.deepEqual(compiled.filter((source) => !topLevelSources.includes(source)), [], `service ${args.join(' ')}`);
      assert.deepEqual(loaded.filter((file) => file.includes('node_modules/')), [], `service ${args.join(' ')}`);
    }
    for (const args of [['start', '--help'], ['start', '--cloud', '--help']]) {
      const result = await runCli(args, { nodeArgs: ['--import', LIST_LOADED_MODULES] });
      assert.equal(result.code, 0, result.stderr);
      const loaded = loadedFiles(result.stderr);
      assert.ok(loaded.includes('dist/listener/cli/start.js'), loaded.join(', '));
      assert.deepEqual(loaded.filter((file) => file.includes('node_modules/') || /app\.js$|sandbox\.js$|config\.js$/.test(file)), [], `service ${args.join(' ')}`);
    }
  });

  it('an unknown flag is answered with the command\'s usage and, when it names a setting, the setting to use', async () => {
    for (const args of [['start', '--port', '9999'], ['start', '--port=9999']]) {
      const result = await runCli(args, { cwd: tmpdir() });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /^service start: --port is not an option; it is a setting, read from the environment or \.\/\.env: use PORT=9999\n {2}\(for example: PORT=9999 npx service start\)\n\nUsage: service start \[--cloud\]\n/);
      assert.doesNotMatch(result.stderr, /positional argument/, 'not the argument parser\'s own text');
      assert.equal(result.stdout, '');
    }
    // A Cloud setting, from the Cloud edition's list.
    const cloud = await runCli(['start', '--cloud', '--checkout-base-url', 'https://pay.example.com'], { cwd: tmpdir() });
    assert.equal(cloud.code, 2);
    assert.match(cloud.stderr, /use CLOUD_CHECKOUT_BASE_URL=https:\/\/pay\.example\.com\n/);
    // A flag that ends several settings' names: each of them.
    const xpub = await runCli(['start', '--xpub', 'zpub6r'], { cwd: tmpdir() });
    assert.equal(xpub.code, 2);
    assert.match(xpub.stderr, /use MERCHANT_BTC_XPUB=zpub6r or MERCHANT_EVM_XPUB=zpub6r or MERCHANT_BASE_XPUB=zpub6r or /);
    // No setting of that name: the flag and the usage.
    const unknown = await runCli(['healthcheck', '--bogus']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /^service healthcheck: unknown option --bogus\n\nUsage: service healthcheck /);
    const missing = await runCli(['healthcheck', '--url']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^service healthcheck: --url needs a value\n\nUsage: service healthcheck /);
    // A flag before the command.
    const before = await runCli(['--port', '9999']);
    assert.equal(before.code, 2);
    assert.match(before.stderr, /^Unknown option "--port" \(options go after the command\)\./);
  });

  it('start --help describes the sandbox, the Cloud sandbox and where settings come from', async () => {
    const help = await runCli(['start', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /never from flags: PORT=9999 npx service start/);
    assert.match(help.stdout, /No merchant key set \(no MERCHANT_BTC_XPUB, MERCHANT_EVM_\*, no chain's own key such as\nMERCHANT_BASE_\* or MERCHANT_ETH_\*, no BASE_\* setting\) and NODE_ENV not production: the SANDBOX\./);
    assert.match(help.stdout, /It never touches a public\nnetwork\./);
    assert.match(help.stdout, /With no settings \(no\n\s+DATABASE_URL, BTC_ESPLORA_URL, BASE_RPC_URL, CLOUD_CHECKOUT_BASE_URL, …\) the Cloud\n\s+SANDBOX/);
    assert.match(help.stdout, /SANDBOX_USDC_MODE/);
  });

  it('a network failure says what did not answer, where and why', async () => {
    const port = String(await releasedPort());
    const dir = mkdtempSync(join(tmpdir(), 'cli-offline-'));
    const health = await runCli(['healthcheck', '--url', `http://127.0.0.1:${port}`]);
    assert.equal(health.code, 1);
    assert.equal(health.stdout, 'unhealthy\n');
    assert.equal(health.stderr, `nothing answers at http://127.0.0.1:${port} (connection refused) — is the listener running (npm start)?\n`);
    // pay and mine with no sandbox running in this directory: the defaults, PORT and SANDBOX_CHAIN_PORT, are asked.
    const pay = await runCli(['pay', 'inv_missing'], { cwd: dir, env: { PORT: port } });
    assert.equal(pay.code, 1);
    assert.match(pay.stderr, new RegExp(`^no sandbox answers at http://127\\.0\\.0\\.1:${port} \\(connection refused\\) — is the sandbox running \\(\`npm start\` with no merchant key`));
    const mine = await runCli(['mine'], { cwd: dir, env: { SANDBOX_CHAIN_PORT: port } });
    assert.equal(mine.code, 1);
    assert.match(mine.stderr, new RegExp(`^no sandbox chain answers at http://127\\.0\\.0\\.1:${port} \\(connection refused\\) — is the sandbox running`));
  });

  it('configuration problems are reported all at once, each with its setting and a plain reason', async () => {
    const listener = await runCli(['start'], {
      env: { MERCHANT_BTC_XPUB: BIP84_ZPUB, DATABASE_URL: tempSqliteUrl(), PORT: 'abc', BTC_WS_MAX_CONNECTIONS: '0', SERVICE_RATE_LIMIT: '30/min' },
      cwd: tmpdir(),
    });
    assert.equal(listener.code, 1);
    assert.equal(
      listener.stderr,
      [
        'Invalid configuration:',
        '  - PORT must be a whole number between 0 and 65535 (0 picks a free port), got "abc"',
        '  - BTC_WS_MAX_CONNECTIONS must be a whole number between 1 and 100, got "0"',
        '  - SERVICE_RATE_LIMIT must be "off", "<per client>" or "<per client>,<overall>" per minute, e.g. 30,300',
        '',
      ].join('\n'),
    );
    const sandbox = await runCli(['start'], { env: { SANDBOX_USDC_MODE: 'sometimes' }, cwd: mkdtempSync(join(tmpdir(), 'cli-sandbox-mode-')) });
    assert.equal(sandbox.code, 1);
    assert.equal(sandbox.stderr, 'Invalid configuration:\n  - SANDBOX_USDC_MODE must be xpub or fixed-address, got "sometimes"\n');
    const cloud = await runCli(['start', '--cloud'], { env: { DATABASE_URL: tempSqliteUrl(), PORT: '99999', CLOUD_WATCH: 'maybe' }, cwd: tmpdir() });
    assert.equal(cloud.code, 1);
    assert.match(cloud.stderr, /^Invalid configuration:\n {2}- PORT must be a whole number between 0 and 65535 \(0 picks a free port\), got "99999"\n {2}- CLOUD_WATCH must be one of 0, 1, true, false, got "maybe"\n$/);
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
