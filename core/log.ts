import type { Clock } from './clock.ts';
import { systemClock } from './clock.ts';

export type LogFields = Record<string, unknown>;

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

/** Extended keys (public or private) of every common version prefix. */
const EXTENDED_KEY = /\b([xyztuvXYZTUV](?:pub|prv))[1-9A-HJ-NP-Za-km-z]{100,112}\b/g;

/** Shortens any extended key to its prefix so a log line never carries one whole. */
export function maskExtendedKeys(text: string): string {
  return text.replace(EXTENDED_KEY, (key) => `${key.slice(0, 8)}…${key.slice(-4)}`);
}

export interface LoggerOptions {
  write?: (line: string) => void;
  clock?: Clock;
  /** Exact strings (API keys, webhook secrets) that must never reach a log line. */
  secrets?: Array<string | null | undefined>;
  fields?: LogFields;
}

/** Structured JSON lines, one per call, with known secrets and extended keys scrubbed. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const clock = options.clock ?? systemClock;
  const secrets = (options.secrets ?? []).filter((s): s is string => typeof s === 'string' && s.length >= 8);

  const scrub = (text: string) => {
    let out = maskExtendedKeys(text);
    for (const secret of secrets) out = out.split(secret).join('[redacted]');
    return out;
  };

  const build = (base: LogFields): Logger => {
    const emit = (level: string, msg: string, fields?: LogFields) => {
      const record = { time: new Date(clock.now()).toISOString(), level, msg, ...base, ...fields };
      write(scrub(JSON.stringify(record, errorReplacer)));
    };
    return {
      info: (msg, fields) => emit('info', msg, fields),
      warn: (msg, fields) => emit('warn', msg, fields),
      error: (msg, fields) => emit('error', msg, fields),
      child: (fields) => build({ ...base, ...fields }),
    };
  };
  return build(options.fields ?? {});
}

function errorReplacer(_key: string, value: unknown) {
  if (value instanceof Error) return { name: value.name, message: value.message };
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export const silentLogger: Logger = {
  info: () => {},
  warn: () => {},
  error: () => {},
  child: () => silentLogger,
};
