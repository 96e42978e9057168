import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * The environment as the commands read it. A module of its own, without the settings' parsers,
 * so a command that only reads a port (`service pay`, `service mine`) loads nothing else.
 */
export type Env = Record<string, string | undefined>;

/** Process environment over the `.env` file: a variable set in the environment wins. */
export function readEnvironment(processEnv: Env, envFile = '.env'): Env {
  const fromFile = existsSync(envFile) ? parseEnv(readFileSync(envFile, 'utf8')) : {};
  return { ...fromFile, ...processEnv };
}
