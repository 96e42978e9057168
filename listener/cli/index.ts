import { runCommand, type Command } from './command.ts';
import { deliveriesCommand } from './deliveries.ts';
import { gapCommand } from './gap.ts';
import { healthcheckCommand } from './healthcheck.ts';
import { initCommand } from './init.ts';
import { mineCommand, payCommand } from './sandbox-commands.ts';
import { startCommand } from './start.ts';
import { webhookReceiverCommand } from './webhook-receiver.ts';

const commands: Command[] = [
  startCommand,
  initCommand,
  healthcheckCommand,
  gapCommand,
  deliveriesCommand,
  webhookReceiverCommand,
  payCommand,
  mineCommand,
];

function usage(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return `Usage: service <command> [options]

Commands:
${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}

Run "service <command> --help" for a command's options.
`;
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(usage());
    return name ? 0 : 1;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`Unknown command "${name}".\n\n${usage()}`);
    return 1;
  }
  try {
    return await runCommand(command, rest);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
