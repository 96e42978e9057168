/** `npm run bench -- <name>` runs bench/<name>.ts; without a name it lists the benchmarks. */
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const available = readdirSync(dir)
  .filter((file) => file.endsWith('.ts') && file !== 'run.ts')
  .map((file) => file.slice(0, -'.ts'.length));
const name = process.argv[2];

if (!name || !available.includes(name)) {
  process.stderr.write(`usage: npm run bench -- <name>\nbenchmarks: ${available.join(', ')}\n`);
  process.exit(2);
}
await import(`./${name}.ts`);
