import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTsc } from '../../bin/build.js';

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
  runTsc(['-p', config], root);
  return {
    file: join(dir, 'out', relative(root, entry).replace(/\.ts$/, '.js')),
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
