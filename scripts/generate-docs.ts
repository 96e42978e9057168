/**
 * Regenerates the committed artifacts from the zod contract: openapi/openapi.json, llms.txt,
 * docs/reference.md, the chain table of docs/chains.md (from the chain definitions), and the typed client example's types (examples/typed-client/api.d.ts, made by
 * openapi-typescript from the document). `--check` exits 1 when a committed file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildLlmsTxt } from '../shared/llms.ts';
import { buildOpenApiDocument } from '../shared/openapi.ts';
import { buildReferenceMarkdown } from '../shared/reference.ts';
import { defaultChains } from '../core/chains/default-chains.ts';
import { withChainsTable } from './chain-docs.ts';

const root = fileURLToPath(new URL('..', import.meta.url));

export function generatedArtifacts(): Record<string, string> {
  return {
    'openapi/openapi.json': `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`,
    'llms.txt': buildLlmsTxt(),
    'docs/reference.md': buildReferenceMarkdown(),
    'docs/chains.md': withChainsTable(readFileSync(`${root}docs/chains.md`, 'utf8'), defaultChains),
  };
}

/**
 * Every generated file: the contract's documents and the example's types. openapi-typescript needs
 * the TypeScript 5 compiler API, so it lives in the example's own install
 * (`npm ci --prefix examples/typed-client`).
 */
export async function generatedFiles(): Promise<Record<string, string>> {
  const artifacts = generatedArtifacts();
  let generateApiTypes: (documentJson: string) => Promise<string>;
  try {
    ({ generateApiTypes } = await import('../examples/typed-client/generate.mjs'));
  } catch (error) {
    throw new Error(`openapi-typescript is not installed: run npm ci --prefix examples/typed-client (${String(error)})`);
  }
  return { ...artifacts, 'examples/typed-client/api.d.ts': await generateApiTypes(artifacts['openapi/openapi.json']) };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [path, content] of Object.entries(await generatedFiles())) {
    const target = `${root}${path}`;
    let current = '';
    try {
      current = readFileSync(target, 'utf8');
    } catch {}
    if (current === content) continue;
    if (check) {
      stale++;
      process.stderr.write(`${path} is stale: run npm run generate\n`);
    } else {
      writeFileSync(target, content);
      process.stdout.write(`wrote ${path}\n`);
    }
  }
  process.exitCode = stale ? 1 : 0;
}
