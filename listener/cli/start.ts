import type { ChainDefinition } from '../../core/chain-definition.ts';
import type { sandboxBaseLines } from '../../edge/start.ts';
import type { Env } from '../../edge/settings.ts';
import type { Sandbox } from '../../sandbox/sandbox.ts';
import type { Command } from './command.ts';

/** The editions `service start` can run besides the listener; Cloud's is given by the entry point. */
export interface Editions {
  /** The chains the service runs (core/chains/default-chains.ts for the `service` command), loaded when a setting is read. */
  chains(): Promise<readonly ChainDefinition[]>;
  runCloud?: () => Promise<number>;
  /** The settings Cloud reads, so `start --cloud --foo 1` can name FOO; loaded only for an unknown flag. */
  cloudSettingNames?: () => Promise<readonly string[]>;
}

/** Settings of the sandboxes themselves (both editions). */
export const sandboxSettingNames = ['SANDBOX_CHAIN_PORT', 'SANDBOX_USDC_MODE'] as const;

export const startCommand = (editions: Editions): Command => ({
  name: 'start',
  usage: `
Usage: service start [--cloud]

Starts the listener. Settings come from environment variables, then from ./.env (the environment
wins), never from flags: PORT=9999 npx service start. See docs/cli.md and docs/self-hosting.md for
every setting. It keeps the terminal, so run the other commands in a second one. Stops cleanly on
SIGINT/SIGTERM (Ctrl-C): no new requests; those under way and webhook attempts in flight get 10 s
to finish. With Postgres, waits up to DATABASE_WAIT_S (default 60) at start for the database.

No merchant key set (no MERCHANT_BTC_XPUB, MERCHANT_EVM_*, no chain's own key such as
MERCHANT_BASE_* or MERCHANT_ETH_*, no BASE_* setting) and NODE_ENV not production: the SANDBOX. Local chains with
worthless coins (Bitcoin regtest served through the Esplora API, a local EVM node per EVM chain
with test USDC and USDT), throwaway keys, a local webhook receiver that verifies and prints each
delivery, a database removed at stop. It never touches a public
network. It prints a banner with commands that work as printed; "service pay" and "service mine"
pay and confirm its invoices. With a key set: the real listener, SQLite at ./data/service.db.

  --cloud   start the multi-tenant Cloud API under /api/v1 instead. With no settings (no
            DATABASE_URL, BTC_ESPLORA_URL, BASE_RPC_URL, CLOUD_CHECKOUT_BASE_URL, …) the Cloud
            SANDBOX: the same local chains, SQLite, one demo merchant whose API key is printed once,
            the dashboard at /dashboard. See docs/cloud-sandbox.md.

Sandbox settings: SANDBOX_CHAIN_PORT (default 18443), SANDBOX_USDC_MODE (xpub, the default: an
address per USDC invoice; fixed-address: USDC at the fixed address too, as USDT always is).`,
  options: { cloud: { type: 'boolean' } },
  settings: async () => [...(await import('../config.ts')).settingNames(await editions.chains()), ...sandboxSettingNames, ...((await editions.cloudSettingNames?.()) ?? [])],
  async run({ values }) {
    if (values.cloud) {
      if (editions.runCloud) return editions.runCloud();
      process.stderr.write('This program was built without the Cloud edition.\n');
      return 1;
    }
    // Imported here, not at the top: `start --help` and a usage error load none of the application.
    const [{ describeVerifiedWebhook, endFailedStart, sandboxBaseLines, STOP_GRACE_MS, stopSignal }, { startListener }, { loadConfig }, { ConfigError, readEnvironment }, { startSandbox, wantsSandbox }] =
      await Promise.all([import('../../edge/start.ts'), import('../app.ts'), import('../config.ts'), import('../../edge/settings.ts'), import('../../sandbox/sandbox.ts')]);
    const signal = stopSignal();
    let config;
    let env = readEnvironment(process.env);
    let sandbox: Sandbox | null = null;
    const chains = await editions.chains();
    if (wantsSandbox(env, chains)) {
      sandbox = await startSandbox(env, { chains, onWebhook: (event) => process.stderr.write(describeVerifiedWebhook(event)) }).catch((error: unknown) => endFailedStart(error));
      env = sandbox.env;
    }
    try {
      config = loadConfig(env, chains);
    } catch (error) {
      if (error instanceof ConfigError) {
        process.stderr.write(`${error.message}\n`);
        await sandbox?.close();
        return 1;
      }
      throw error;
    }
    const listener = await startListener(config, sandbox ? { tuning: { bitcoin: { pollIntervalMs: 2_000 }, evm: { pollIntervalMs: 1_000 } } } : {}).catch((error: unknown) =>
      endFailedStart(error, () => sandbox?.close() ?? Promise.resolve()),
    );
    if (sandbox) {
      sandbox.announce(listener.url);
      process.stderr.write(sandboxBanner(sandbox, listener.url, apiKeySource(env), sandboxBaseLines));
    }
    signal.started();
    await signal.requested;
    await listener.stop({ graceMs: STOP_GRACE_MS });
    await sandbox?.close();
    return 0;
  },
});

type ApiKeySource = 'none' | 'environment' | 'env-file';

/** Where SERVICE_API_KEY comes from, so the banner's commands send it the way this shell can. */
function apiKeySource(env: Env): ApiKeySource {
  if (!env.SERVICE_API_KEY?.trim()) return 'none';
  return process.env.SERVICE_API_KEY?.trim() ? 'environment' : 'env-file';
}

/**
 * The commands printed work as they stand with the settings in force: with an API key set, the
 * create command sends it from $SERVICE_API_KEY (never printed), after a line that loads it from
 * ./.env when that is where it is.
 */
function sandboxBanner(sandbox: Sandbox, url: string, keySource: ApiKeySource, baseLines: typeof sandboxBaseLines): string {
  const keyHeader = keySource === 'none' ? '' : ` -H "X-Service-Api-Key: $SERVICE_API_KEY"`;
  const create = (body: string) => `curl -s -X POST ${url}/invoice -H 'content-type: application/json'${keyHeader} -d '${body}'`;
  const key = {
    none: [],
    environment: ['  API key: SERVICE_API_KEY is set; the create commands send $SERVICE_API_KEY (export it in the shell you run them from).'],
    'env-file': [
      '  API key: SERVICE_API_KEY is set in ./.env; load it into your shell for the create commands:',
      `  Load:    export SERVICE_API_KEY="$(sed -n 's/^SERVICE_API_KEY=//p' .env)"`,
    ],
  }[keySource];
  const webhooks = sandbox.webhookReceiver
    ? `  Webhooks: sent to a local receiver (${sandbox.webhookReceiver.url}) that verifies each signature and prints it here.`
    : `  Webhooks: sent to your MERCHANT_WEBHOOK_URL (${sandbox.env.MERCHANT_WEBHOOK_URL}).`;
  const base = baseLines(sandbox, create, '<invoice_id>');
  return [
    '',
    '  SANDBOX MODE: no merchant key is configured, so these are local chains with throwaway keys.',
    '  Coins and tokens are worthless, nothing outlives the run, mainnet is never touched.',
    webhooks,
    '  Deliveries: npx service deliveries --all   (run in this directory: it reads the sandbox\'s database)',
    ...key,
    '  Bitcoin: a local regtest chain.',
    `  Create:  ${create('{"amount_sats":50000}')}`,
    '  Pay:     npx service pay <invoice_id> [amount_sats]      Confirm:  npx service mine [n]',
    `  Lightning: a simulated wallet (regtest, not a real Lightning node) over a local Nostr relay (${sandbox.lightning.relay.url}):`,
    '           Bitcoin invoices carry a lightning_invoice too (MERCHANT_NWC_URL points at the simulated wallet).',
    '  Pay:     npx service pay <invoice_id> --lightning       (settled at once, no mining)',
    ...base,
    '',
    '',
  ].join('\n');
}