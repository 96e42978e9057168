import { API_VERSION } from '../../shared/version.ts';
import { runCommand, USAGE_EXIT_CODE, type Command } from './command.ts';
import { deliveriesCommand } from './deliveries.ts';
import { gapCommand } from './gap.ts';
import { healthcheckCommand } from './healthcheck.ts';
import { initCommand } from './init.ts';
import { fundCommand, mineCommand, payCommand } from './sandbox-commands.ts';
import { startCommand, type Editions } from './start.ts';
import { webhookReceiverCommand } from './webhook-receiver.ts';

const listenerCommands: Command[] = [
  initCommand,
  healthcheckCommand,
  gapCommand,
  deliveriesCommand,
  webhookReceiverCommand,
  payCommand,
  mineCommand,
  fundCommand,
];

function usage(commands: Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `Usage: service <command> [options]
       service --version

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run "service <command> --help" for a command's options. Settings come from the environment and
./.env, not from flags: PORT=9999 npx service start.
`;
}

/** Runs `service <command>`; the entry point (bin/cli.ts) passes the editions it was built with. */
export async function main(argv: string[], editions: Editions): Promise<number> {
  const commands = [startCommand(editions), ...listenerCommands];
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage(commands));
    return name ? 0 : 1;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`service ${API_VERSION}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    const what = name.startsWith('-') ? `Unknown option "${name}" (options go after the command)` : `Unknown command "${name}"`;
    process.stderr.write(`${what}.\n\n${usage(commands)}`);
    return name.startsWith('-') ? USAGE_EXIT_CODE : 1;
  }
  try {
    return await runCommand(command, rest);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}
