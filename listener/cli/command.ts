import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface Command {
  name: string;
  summary: string;
  usage: string;
  options?: ParseArgsConfig['options'];
  /** Returns the process exit code. */
  run(args: { values: Record<string, unknown>; positionals: string[] }): Promise<number>;
}

export function runCommand(command: Command, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${command.usage.trim()}\n`);
    return Promise.resolve(0);
  }
  return command.run({ values, positionals });
}
