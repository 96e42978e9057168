import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { builtPath, ensureBuilt, isFresh } from '../../bin/build.js';
import { repoRoot } from '../helpers/child.ts';
import { parseAccountKey, receiveAddress } from '../../core/btc/account-key.ts';
import { silentLogger } from '../../core/log.ts';
import { BIP84_ZPUB, postJson, tempSqliteUrl } from '../helpers/listener.ts';
import { spawnListener } from '../helpers/process.ts';

const BUILD_MODULE = pathToFileURL(join(repoRoot, 'bin/build.js')).href;
const quiet = () => undefined;

/**
 * A small project built by this repository's compiler and bin/build.js: app/ is compiled (with a
 * stylesheet it reads at run time), bin/ holds a launcher that is not copied.
 */
function smallProject(): string {
  const root = mkdtempSync(join(tmpdir(), 'build-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(root, 'node_modules'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', strict: true, allowImportingTsExtensions: true, noEmit: true, types: [] } }),
  );
  writeFileSync(
    join(root, 'tsconfig.build.json'),
    JSON.stringify({ extends: './tsconfig.json', compilerOptions: { noEmit: false, rewriteRelativeImportExtensions: true, rootDir: '.', outDir: 'dist' }, include: ['app', 'bin'] }),
  );
  mkdirSync(join(root, 'app/public'), { recursive: true });
  mkdirSync(join(root, 'bin'));
  writeFileSync(join(root, 'app/word.ts'), "export const word: string = 'first';\n");
  writeFileSync(join(root, 'app/main.ts'), "import { word } from './word.ts';\nexport const said = word;\n");
  writeFileSync(join(root, 'app/public/page.css'), 'body { color: black }\n');
  writeFileSync(join(root, 'bin/launch.js'), "import './build.js';\n");
  return root;
}

let imports = 0;
/** Imports a compiled module afresh (a query string defeats the module cache; not its own imports'). */
async function load(root: string, source: string): Promise<Record<string, unknown>> {
  return import(`${pathToFileURL(builtPath(source, root)).href}?${++imports}`);
}

describe('the production build (bin/build.js)', () => {
  it('compiles a missing build with .js specifiers and the run-time files, keeps a fresh one, and compiles again after a change', async () => {
    const root = smallProject();
    try {
      assert.equal(isFresh(root), false);
      assert.equal(await ensureBuilt({ root, log: quiet }), 'built');
      assert.equal((await load(root, 'app/main.ts')).said, 'first');
      assert.match(readFileSync(builtPath('app/main.ts', root), 'utf8'), /from '\.\/word\.js'/);
      assert.equal(readFileSync(join(root, 'dist/app/public/page.css'), 'utf8'), 'body { color: black }\n');
      assert.equal(existsSync(join(root, 'dist/bin/launch.js')), false, 'the launchers run from bin/, not dist/');

      assert.equal(await ensureBuilt({ root, log: quiet }), 'fresh');

      writeFileSync(join(root, 'app/word.ts'), "export const word: string = 'second';\n");
      assert.equal(isFresh(root), false, 'a source saved after the build makes it stale');
      assert.equal(await ensureBuilt({ root, log: quiet }), 'built');
      assert.equal((await load(root, 'app/word.ts')).word, 'second');

      // A removed source changes its folder's time: the build is made again, without the file.
      writeFileSync(join(root, 'app/main.ts'), "export const said = 'alone';\n");
      rmSync(join(root, 'app/word.ts'));
      assert.equal(await ensureBuilt({ root, log: quiet }), 'built');
      assert.equal((await load(root, 'app/main.ts')).said, 'alone');
      assert.equal(existsSync(builtPath('app/word.ts', root)), false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('builds once when processes start together, and takes over a lock left by a killed builder', async () => {
    const root = smallProject();
    const start = () =>
      new Promise<string>((resolve, reject) => {
        const script = `const { ensureBuilt } = await import(${JSON.stringify(BUILD_MODULE)}); process.stdout.write(await ensureBuilt({ root: ${JSON.stringify(root)}, log() {} }));`;
        const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (chunk) => (out += chunk));
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`builder exited ${code}`))));
      });
    try {
      assert.deepEqual((await Promise.all([start(), start(), start()])).sort(), ['built', 'fresh', 'fresh']);
      assert.equal((await load(root, 'app/main.ts')).said, 'first');

      const dead = spawn(process.execPath, ['-e', '']);
      await new Promise((resolve) => dead.on('close', resolve));
      writeFileSync(join(root, 'dist.lock'), String(dead.pid));
      writeFileSync(join(root, 'app/word.ts'), "export const word: string = 'after the crash';\n");
      assert.equal(await ensureBuilt({ root, log: quiet }), 'built');
      assert.equal((await load(root, 'app/word.ts')).word, 'after the crash');
      assert.equal(existsSync(join(root, 'dist.lock')), false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('bin/service.js runs the compiled listener from dist/: it answers /health and serves its checkout assets', async () => {
    const listener = await spawnListener({ DATABASE_URL: tempSqliteUrl() });
    try {
      assert.equal(isFresh(repoRoot), true);
      assert.equal((await fetch(`${listener.url}/health`)).status, 200);
      const created = await postJson(`${listener.url}/invoice`, { amount_sats: 1000 });
      assert.equal(created.status, 201);
      const page = await fetch(`${listener.url}/pay/${(created.json as { invoice_id: string }).invoice_id}`);
      assert.equal(page.status, 200);
      const stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(await page.text());
      assert.ok(stylesheet, 'the checkout page links its stylesheet');
      const css = await fetch(new URL(stylesheet[1], listener.url));
      assert.equal(css.status, 200);
      assert.equal(await css.text(), readFileSync(join(repoRoot, 'edge/checkout/public/checkout.css'), 'utf8'));
    } finally {
      await listener.stop();
    }
  });

  it('the compiled address deriver loads its worker from dist/ and derives what the TypeScript derives', async () => {
    const compiled = (await import(pathToFileURL(builtPath('core/btc/receive-address-book.ts')).href)) as typeof import('../../core/btc/receive-address-book.ts');
    let failure: unknown = null;
    const deriver = compiled.startAddressDeriver({ ...silentLogger, warn: (_msg: string, fields?: unknown) => (failure = fields) });
    try {
      const key = parseAccountKey(BIP84_ZPUB);
      assert.deepEqual(await deriver.derive(key, 0, 3), [0, 1, 2].map((index) => receiveAddress(key, index)));
      assert.equal(failure, null);
    } finally {
      deriver.close();
    }
  });
});
