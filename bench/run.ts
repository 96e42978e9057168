/**
 * `npm run bench` runs every benchmark; `npm run bench -- <name>` runs bench/<name>.ts.
 * Each runs in its own process so one cannot warm or starve another.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(dir)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => file.slice(0, -3))
  .sort();

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(`Usage: npm run bench [-- <name> ...]\n\nBenchmarks: ${available.join(', ')}\n`);
  process.exit(0);
}
const wanted = args.length ? args : available;
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length) {
  process.stderr.write(`Unknown benchmark(s): ${unknown.join(', ')}. Available: ${available.join(', ')}\n`);
  process.exit(1);
}
let failed = 0;
for (const name of wanted) {
  process.stderr.write(`\n=== bench ${name} ===\n`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${dir}${name}.ts`], { stdio: 'inherit' });
  if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
