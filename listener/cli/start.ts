import { startListener } from '../app.ts';
import { ConfigError, loadConfig, readEnvironment } from '../config.ts';
import { startSandbox, wantsSandbox, type Sandbox } from '../sandbox/sandbox.ts';
import type { Command } from './command.ts';

/** The editions `service start` can run besides the listener; Cloud's is given by the entry point. */
export interface Editions {
  runCloud?: () => Promise<number>;
}

export const startCommand = (editions: Editions): Command => ({
  name: 'start',
  summary: 'Start the listener (settings from the environment and ./.env)',
  usage: `
Usage: service start [--cloud]

Starts the listener. Settings come from environment variables, then from ./.env (the environment
wins). The default database is SQLite at ./data/service.db. See the README for every setting.
Stops cleanly on SIGINT/SIGTERM.

  --cloud   start the multi-tenant Cloud API under /api/v1 instead (settings: README, Cloud)`,
  options: { cloud: { type: 'boolean' } },
  async run({ values }) {
    if (values.cloud) {
      if (editions.runCloud) return editions.runCloud();
      process.stderr.write('This program was built without the Cloud edition.\n');
      return 1;
    }
    let config;
    let env = readEnvironment(process.env);
    let sandbox: Sandbox | null = null;
    if (wantsSandbox(env)) {
      sandbox = await startSandbox(env);
      env = sandbox.env;
    }
    try {
      config = loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) {
        process.stderr.write(`${error.message}\n`);
        await sandbox?.close();
        return 1;
      }
      throw error;
    }
    const listener = await startListener(config, sandbox ? { btcPollIntervalMs: 2_000, baseOptions: { pollIntervalMs: 1_000 } } : {});
    if (sandbox) process.stderr.write(sandboxBanner(sandbox, listener.url));
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    await listener.stop();
    await sandbox?.close();
    return 0;
  },
});

function sandboxBanner(sandbox: Sandbox, url: string): string {
  const create = (body: string) => `curl -s -X POST ${url}/invoice -H 'content-type: application/json' -d '${body}'`;
  const base = sandbox.evm
    ? [
        `  Base:    a local EVM node (chain id ${sandbox.evm.anvil.chainId}, not Base) with a test USDC; invoices in xpub mode.`,
        `  Create:  ${create('{"chain":"base","amount_usd":12.5}')}`,
        '  Pay:     npx service pay <invoice_id> [amount_usd]       Confirm:  npx service mine',
      ]
    : [`  Base:    not in this sandbox: ${sandbox.baseUnavailable}`];
  return [
    '',
    '  SANDBOX MODE: no merchant key is configured, so these are local chains with throwaway keys.',
    '  Coins and tokens are worthless, nothing is saved, mainnet is never touched.',
    '  Bitcoin: a local regtest chain.',
    `  Create:  ${create('{"amount_sats":50000}')}`,
    '  Pay:     npx service pay <invoice_id> [amount_sats]      Confirm:  npx service mine [n]',
    ...base,
    '',
    '',
  ].join('\n');
}
