import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/conformance/', import.meta.url));
const SUITE_BIN = join(PACKAGE_DIR, (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { bin: Record<string, string> }).bin['conformance']!);

/** The suite's own verdict on one check, read from a scenario's checks.json. */
export interface SuiteCheck {
  scenario: string;
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

export interface SuiteRun {
  code: number | null;
  /** stdout and stderr as the suite printed them: its per-scenario progress and per-check summary. */
  output: string;
  checks: SuiteCheck[];
}

/**
 * Runs the pinned conformance suite (its bin in node_modules) with the Node running this test,
 * results written under `outputDir`. Asynchronous on purpose: the servers it tests answer from this
 * very process. `onLine` sees each line the suite prints (e.g. the authorization URL to open);
 * `signal` stops it (the run then rejects).
 */
export function runSuite(args: string[], outputDir: string, options: { timeoutMs: number; onLine?: (line: string) => void; signal?: AbortSignal }): Promise<SuiteRun> {
  const child = spawn(process.execPath, [SUITE_BIN, ...args, '--output-dir', outputDir], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' }, signal: options.signal });
  let output = '';
  let pending = '';
  const take = (chunk: Buffer) => {
    output += stripVTControlCharacters(chunk.toString());
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) options.onLine?.(line);
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`the conformance suite did not finish in ${options.timeoutMs} ms (conformance ${args.join(' ')}); its output so far:\n${output}`));
    }, options.timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, checks: readChecks(outputDir) });
    });
  });
}

/** Each scenario's checks.json in a results directory: `<mode>-<scenario>-<timestamp>/checks.json`. */
function readChecks(outputDir: string): SuiteCheck[] {
  return readdirSync(outputDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) => {
      const scenario = /^(?:authorization-)?server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name)?.[1];
      if (!scenario) throw new Error(`unexpected results directory ${entry.name} in ${outputDir}`);
      const checks = JSON.parse(readFileSync(join(outputDir, entry.name, 'checks.json'), 'utf8')) as Omit<SuiteCheck, 'scenario'>[];
      return checks.map(({ id, status, errorMessage }) => ({ scenario, id, status, errorMessage }));
    });
}

/**
 * The `server:` entries of an expected-failures file, each `scenario:check-id`. Our files hold only
 * that list (and comments); anything else is refused rather than half-read.
 */
export function readExpectedFailures(path: string): string[] {
  const entries: string[] = [];
  for (const [index, line] of readFileSync(path, 'utf8').split('\n').entries()) {
    const text = line.replace(/#.*/, '').trimEnd();
    if (text === '' || text === 'server:') continue;
    const entry = /^ {2}- ([\w./-]+:[\w./-]+)$/.exec(text)?.[1];
    if (!entry) throw new Error(`${path}:${index + 1}: expected "  - scenario:check-id" under server:, got ${JSON.stringify(line)}`);
    entries.push(entry);
  }
  return entries;
}

const SEVERITY: SuiteCheck['status'][] = ['FAILURE', 'WARNING', 'SUCCESS', 'SKIPPED', 'INFO'];

/**
 * Our own reading of the checks against the baseline, by the suite's rules (a WARNING fails like a
 * FAILURE; an id that repeats counts at its most severe; an entry is stale when its check passed,
 * not when it is absent, as a scenario that bails early never reaches its later checks), over every
 * scenario that ran: the suite's exit code leaves out the scenarios its requirement set runs
 * without scoring (pending, added after the release, extensions), whose failures must be just as
 * expected.
 */
export function compareWithBaseline(checks: SuiteCheck[], expected: string[]) {
  const verdicts = new Map<string, SuiteCheck>();
  for (const check of checks) {
    const key = `${check.scenario}:${check.id}`;
    const before = verdicts.get(key);
    if (!before || SEVERITY.indexOf(check.status) < SEVERITY.indexOf(before.status)) verdicts.set(key, check);
  }
  const failed = [...verdicts].filter(([, check]) => check.status === 'FAILURE' || check.status === 'WARNING');
  return {
    unexpected: failed.filter(([key]) => !expected.includes(key)).map(([key, check]) => `${key} ${check.status}: ${check.errorMessage ?? ''}`),
    stale: expected.filter((key) => verdicts.get(key)?.status === 'SUCCESS'),
  };
}

/** Passed and failed checks, and scenarios with every check passed, for the test's report. */
export function tally(checks: SuiteCheck[]) {
  const scenarios = new Set(checks.map((check) => check.scenario));
  const failing = new Set(checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING').map((check) => check.scenario));
  return {
    scenarios: scenarios.size,
    scenariosPassed: scenarios.size - failing.size,
    checksPassed: checks.filter((check) => check.status === 'SUCCESS').length,
    checksFailed: checks.filter((check) => check.status === 'FAILURE').length,
    checksWarned: checks.filter((check) => check.status === 'WARNING').length,
  };
}
