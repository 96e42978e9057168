import { VERSION_TEXT } from '../../shared/version.ts';
import type { Command } from './command.ts';
import type { Editions } from './start.ts';

/**
 * A command as the top level knows it: its name and summary, and the module with the rest,
 * imported only when that command runs. `service --version`, `--help` and an unknown command load
 * none of them; a command loads its own module, which loads the application graph it needs.
 */
interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<Command>;
}

/** Runs `service <command>`; the entry point (bin/cli.ts) passes how to load the editions it was built with. */
export async function main(argv: string[], loadEditions: () => Promise<Editions>): Promise<number> {
  const commands: CommandEntry[] = [
    {
      name: 'start',
      summary: 'Start the listener, or with no merchant key the sandbox (settings from the environment and ./.env)',
      load: async () => (await import('./start.ts')).startCommand(await loadEditions()),
    },
    { name: 'init', summary: 'Make an API key and a webhook secret and write them to .env', load: async () => (await import('./init.ts')).initCommand },
    { name: 'healthcheck', summary: 'Probe GET /health; exit 0 when healthy, 1 otherwise', load: async () => (await import('./healthcheck.ts')).healthcheckCommand },
    {
      name: 'gap',
      summary: 'Report the Bitcoin address gap and the wallet gap limit needed to see every payment',
      load: async () => (await import('./gap.ts')).gapCommand,
    },
    {
      name: 'deliveries',
      summary: 'List pending and failed webhook deliveries, show attempts, re-send failed ones',
      load: async () => (await import('./deliveries.ts')).deliveriesCommand,
    },
    {
      name: 'webhook-receiver',
      summary: 'Run a local receiver that verifies and prints signed webhooks (for testing)',
      load: async () => (await import('./webhook-receiver.ts')).webhookReceiverCommand,
    },
    {
      name: 'pay',
      summary: 'Sandbox only: pay an invoice from the sandbox wallet (regtest coins, test USDC or USDT)',
      load: async () => (await import('./sandbox-commands.ts')).payCommand,
    },
    { name: 'mine', summary: 'Sandbox only: mine blocks on the sandbox chains', load: async () => (await import('./sandbox-commands.ts')).mineCommand },
    {
      name: 'fund',
      summary: 'Sandbox only: give an agent wallet sandbox USDC on every sandbox EVM chain (to pay with x402)',
      load: async () => (await import('./sandbox-commands.ts')).fundCommand,
    },
  ];
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage(commands));
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`service ${VERSION_TEXT}\n`);
    return 0;
  }
  // Loaded after --version and --help, which bin/service.js answers after checking only the sources they load (bin/top-level.js).
  const { runCommand, USAGE_EXIT_CODE } = await import('./command.ts');
  const entry = commands.find((c) => c.name === name);
  if (!entry) {
    const what = name.startsWith('-') ? `Unknown option "${name}" (options go after the command)` : `Unknown command "${name}"`;
    process.stderr.write(`${what}.\n\n${usage(commands)}`);
    return name.startsWith('-') ? USAGE_EXIT_CODE : 1;
  }
  try {
    return await runCommand(await entry.load(), rest);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}

function usage(commands: CommandEntry[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `Usage: service <command> [options]
       service --version

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run "service <command> --help" for a command's options. Settings come from the environment and
./.env, not from flags: PORT=9999 npx service start.
`;
}
