import { parseArgs, type ParseArgsConfig } from 'node:util';

export interface Command {
  name: string;
  usage: string;
  options?: ParseArgsConfig['options'];
  /**
   * The settings (environment variables) the command reads: an unknown flag that names one
   * (`--port 9999`, `--database-url=…`) is answered with the setting to use instead (`PORT=9999`).
   * A function when the names live in a heavy module: it is called only for an unknown flag.
   */
  settings?: readonly string[] | (() => Promise<readonly string[]>);
  /** Returns the process exit code. */
  run(args: { values: Record<string, unknown>; positionals: string[] }): Promise<number>;
}

/** Exit code of a command line the command cannot run as given (unknown flag, missing value). */
export const USAGE_EXIT_CODE = 2;

interface ParseArgsError extends Error {
  code: string;
}

const isParseError = (error: unknown): error is ParseArgsError =>
  error instanceof Error && typeof (error as ParseArgsError).code === 'string' && (error as ParseArgsError).code.startsWith('ERR_PARSE_ARGS_');

/**
 * The settings an unknown flag stands for, with the value that followed it: `--port 9999` and
 * `--port=9999` read as PORT=9999 when the command reads PORT; a flag that is the end of setting
 * names (`--checkout-base-url`, `--xpub`) reads as each of them (CLOUD_CHECKOUT_BASE_URL;
 * MERCHANT_BTC_XPUB and MERCHANT_BASE_XPUB). Empty when it names none.
 */
export function settingsForFlag(argv: string[], flag: string, settings: readonly string[]): string[] {
  const name = flag.replace(/^-+/, '').replace(/=.*$/, '').toUpperCase().replace(/-/g, '_');
  if (!name) return [];
  const named = settings.includes(name) ? [name] : [...new Set(settings.filter((setting) => setting.endsWith(`_${name}`)))];
  const at = argv.findIndex((arg) => arg === flag || arg.startsWith(`${flag}=`));
  const given = argv[at] ?? '';
  const next = argv[at + 1];
  const value = given.includes('=') ? given.slice(given.indexOf('=') + 1) : next !== undefined && !next.startsWith('-') ? next : '…';
  return named.map((setting) => `${setting}=${value}`);
}

/** What was wrong with the command line, in the command's own words, before its usage. */
async function describeParseError(command: Command, argv: string[], error: ParseArgsError): Promise<string> {
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const flag = /'([^']+)'/.exec(error.message)?.[1] ?? 'that option';
    const known = typeof command.settings === 'function' ? await command.settings() : (command.settings ?? []);
    const settings = settingsForFlag(argv, flag, known);
    if (settings.length > 0) {
      return `service ${command.name}: ${flag} is not an option; it is a setting, read from the environment or ./.env: use ${settings.join(' or ')}\n  (for example: ${settings[0]} npx service ${[command.name, ...argv.filter((arg) => arg === '--cloud')].join(' ')})`;
    }
    return `service ${command.name}: unknown option ${flag}`;
  }
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const flag = /'(--?[^' ]+)/.exec(error.message)?.[1];
    return `service ${command.name}: ${flag ? `${flag} needs a value` : error.message}`;
  }
  return `service ${command.name}: ${error.message}`;
}

export async function runCommand(command: Command, argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    if (!isParseError(error)) throw error;
    process.stderr.write(`${await describeParseError(command, argv, error)}\n\n${command.usage.trim()}\n`);
    return USAGE_EXIT_CODE;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${command.usage.trim()}\n`);
    return 0;
  }
  return command.run({ values, positionals });
}
