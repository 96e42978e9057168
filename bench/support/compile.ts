import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Compiles one bench entry and what it imports to JavaScript with the production build's settings
 * (tsconfig.build.json), so a bench measures a process that runs compiled code as `npm start` does.
 * The output lives in a dist.bench-* folder of the repository, so packages resolve as from dist/.
 */
export function compileEntry(entry: string): { file: string; dispose(): void } {
  const dir = mkdtempSync(join(root, 'dist.bench-'));
  const config = join(dir, 'tsconfig.json');
  writeFileSync(
    config,
    JSON.stringify({ extends: join(root, 'tsconfig.build.json'), compilerOptions: { rootDir: root, outDir: join(dir, 'out') }, include: [], files: [entry] }),
  );
  const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript/package.json')), 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', config], { cwd: root, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`tsc failed:\n${result.stdout}${result.stderr}`);
  return {
    file: join(dir, 'out', relative(root, entry).replace(/\.ts$/, '.js')),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
