#!/usr/bin/env node
/**
 * The production build. `node bin/build.js` (`npm run build`) compiles the TypeScript sources to
 * dist/ with tsc -p tsconfig.build.json, which rewrites the `.ts` import specifiers to `.js`, and
 * copies beside them the files they read at run time (checkout and dashboard assets, the sandbox
 * token). The bin entries go through `runBuilt`, so they run compiled JavaScript that matches the
 * sources: a build is made first when dist/ is missing or a source is newer than its stamp.
 *
 * Plain JavaScript, because it runs before anything is compiled.
 */
import { cpSync, existsSync, linkSync, readFileSync, readdirSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ownRoot = fileURLToPath(new URL('..', import.meta.url));
const STAMP = '.build-stamp';
const CONFIG = 'tsconfig.build.json';
/** The launchers in bin/ run before the build and import nothing compiled, so they are not copied. */
const LAUNCHERS = 'bin';

/** Where the compiled twin of `source` (a path relative to the root, e.g. bin/cli.ts) lives. */
export function builtPath(source, root = ownRoot) {
  return join(root, 'dist', source.replace(/\.ts$/, '.js'));
}

/** The folders compiled, as tsconfig.build.json includes them. */
function sourceDirs(root) {
  return JSON.parse(readFileSync(join(root, CONFIG), 'utf8')).include;
}

/** Every file and folder of the sources: a folder's time changes when a file is added or removed. */
function* sourceEntries(root) {
  yield join(root, CONFIG);
  yield join(root, 'tsconfig.json');
  const walk = function* (dir) {
    yield dir;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) yield* walk(path);
      else yield path;
    }
  };
  for (const dir of sourceDirs(root)) yield* walk(join(root, dir));
}

/**
 * True when dist/ exists and no source changed since the build that made it started. `only` (paths
 * relative to the root) narrows the check to the sources a run is known to load; one missing is a change.
 */
export function isFresh(root = ownRoot, only = undefined) {
  let stampMs;
  try {
    stampMs = statSync(join(root, 'dist', STAMP)).mtimeMs;
  } catch {
    return false;
  }
  if (only) return only.every((source) => (statSync(join(root, source), { throwIfNoEntry: false })?.mtimeMs ?? Infinity) <= stampMs);
  for (const path of sourceEntries(root)) {
    try {
      if (statSync(path).mtimeMs > stampMs) return false;
    } catch {
      // removed since it was listed: its folder's time shows the change
    }
  }
  return true;
}

function compilerPath(root) {
  try {
    return join(dirname(createRequire(join(root, 'package.json')).resolve('typescript/package.json')), 'bin', 'tsc');
  } catch {
    return null;
  }
}

/** Runs the project's tsc with `args`; throws with its output if it fails. */
export function runTsc(args, root = ownRoot) {
  // Loaded here, not at the top: every `service` command imports this file, few of them compile.
  const { spawnSync } = process.getBuiltinModule('node:child_process');
  const result = spawnSync(process.execPath, [compilerPath(root), ...args], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tsc failed (${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
}

/**
 * Compiles into dist.next/ and swaps it in, so a half-written build is never run. The stamp's
 * time is when the compile started: a source saved during the compile makes the next start build again.
 */
function compile(root) {
  const startedAt = new Date();
  const next = join(root, 'dist.next');
  rmSync(next, { recursive: true, force: true });
  runTsc(['-p', join(root, CONFIG), '--outDir', next], root);
  for (const dir of sourceDirs(root).filter((dir) => dir !== LAUNCHERS)) {
    cpSync(join(root, dir), join(next, dir), { recursive: true, filter: (path) => !path.endsWith('.ts') });
  }
  const stamp = join(next, STAMP);
  writeFileSync(stamp, `${startedAt.toISOString()}\n`);
  utimesSync(stamp, startedAt, startedAt);
  const dist = join(root, 'dist');
  const old = join(root, 'dist.old');
  rmSync(old, { recursive: true, force: true });
  if (existsSync(dist)) renameSync(dist, old);
  renameSync(next, dist);
  rmSync(old, { recursive: true, force: true });
}

/** The builder's pid is written before the lock is linked into place, so a lock is never empty. */
function ownerAlive(lock) {
  try {
    process.kill(Number(readFileSync(lock, 'utf8')), 0);
    return true;
  } catch (error) {
    // ENOENT: released meanwhile, try again; EPERM: alive under another user.
    return error.code !== 'ESRCH';
  }
}

/**
 * Holds dist.lock while `work` runs, waiting for another builder first (concurrent test processes
 * all start bin/service.js). A lock left by a killed builder is taken over.
 */
async function withLock(root, work) {
  const lock = join(root, 'dist.lock');
  const mine = `${lock}.${process.pid}`;
  writeFileSync(mine, String(process.pid));
  try {
    for (;;) {
      try {
        linkSync(mine, lock);
        break;
      } catch (error) {
        if (error.code !== 'EEXIST') throw error;
        if (!ownerAlive(lock)) rmSync(lock, { force: true });
        else await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    rmSync(mine, { force: true });
  }
  try {
    return work();
  } finally {
    rmSync(lock, { force: true });
  }
}

/**
 * Makes dist/ match the sources. Returns 'fresh' (nothing to do), 'built', or 'no-compiler' when
 * it is stale and TypeScript is not installed (npm ci --omit=dev), so the caller runs the sources.
 * `loads`: the only sources the run will load, when the caller knows them; fresh if none of them changed.
 */
export async function ensureBuilt({ root = ownRoot, log = (line) => process.stderr.write(`${line}\n`), loads = undefined } = {}) {
  if (loads && isFresh(root, loads)) return 'fresh';
  if (isFresh(root)) return 'fresh';
  if (!compilerPath(root)) return 'no-compiler';
  return withLock(root, () => {
    // Another process may have built while this one waited for the lock.
    if (isFresh(root)) return 'fresh';
    const started = performance.now();
    log(`compiling to ${relative(process.cwd(), join(root, 'dist')) || 'dist'}/ (first run, or the sources changed)…`);
    compile(root);
    log(`compiled in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return 'built';
  });
}

/**
 * Runs the compiled twin of `source`, building it first if needed; the TypeScript itself (via tsx)
 * without a compiler. `loads`: as for ensureBuilt.
 */
export async function runBuilt(source, { loads = undefined } = {}) {
  if ((await ensureBuilt({ loads })) !== 'no-compiler') return import(pathToFileURL(builtPath(source)).href);
  process.stderr.write('TypeScript is not installed, so dist/ cannot be built: running the sources through tsx\n');
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(ownRoot, source)).href);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const outcome = await ensureBuilt();
  if (outcome === 'no-compiler') {
    process.stderr.write('TypeScript is not installed: run npm ci (with the dev dependencies) first\n');
    process.exitCode = 1;
  } else if (outcome === 'fresh') {
    process.stderr.write('dist/ is up to date\n');
  }
}
