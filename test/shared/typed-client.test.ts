// examples/typed-client: types generated from the OpenAPI document (openapi-typescript), calls made
// with openapi-fetch. Type-checked here, a wrong call must fail the check, and it runs against a
// real listener.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { RunningListener } from '../../listener/app.ts';
import { repoRoot, spawnChild } from '../helpers/child.ts';
import { startTestListener } from '../helpers/listener.ts';

const example = join(repoRoot, 'examples/typed-client');
const tsc = join(repoRoot, 'node_modules/.bin/tsc');

async function run(command: string, args: string[], env: Record<string, string> = {}) {
  const child = spawnChild(command, args, env);
  const code = await child.exited;
  return { code, output: `${child.stdout()}${child.stderr()}` };
}

describe('typed client example (openapi-typescript + openapi-fetch)', () => {
  const apiKey = 'sk_typed_client_example_0123456789';
  let listener: RunningListener;
  before(async () => {
    listener = await startTestListener({ env: { SERVICE_API_KEY: apiKey } });
  });
  after(() => listener.stop());

  it('type-checks against the generated types, and a call the contract forbids does not', async () => {
    const ok = await run(tsc, ['-p', join(example, 'tsconfig.json')]);
    assert.equal(ok.code, 0, ok.output);

    const wrong = join(example, 'wrong-call.ts');
    writeFileSync(
      wrong,
      "import createClient from 'openapi-fetch';\nimport type { paths } from './api.d.ts';\nconst client = createClient<paths>({ baseUrl: 'http://127.0.0.1' });\nawait client.POST('/invoice', { body: { amount_sats: 'many' } });\nawait client.GET('/invoices/{id}', { params: { path: { id: 'x' } } });\n",
    );
    const wrongConfig = join(example, 'tsconfig.wrong-call.json');
    writeFileSync(wrongConfig, JSON.stringify({ extends: './tsconfig.json', include: ['wrong-call.ts', 'api.d.ts'] }));
    try {
      const bad = await run(tsc, ['-p', wrongConfig]);
      assert.notEqual(bad.code, 0);
      assert.match(bad.output, /wrong-call\.ts\(4,/, 'a string amount_sats is refused');
      assert.match(bad.output, /wrong-call\.ts\(5,/, 'a path that is not in the document is refused');
    } finally {
      rmSync(wrong, { force: true });
      rmSync(wrongConfig, { force: true });
    }
  });

  it('creates and reads an invoice against a running listener', async () => {
    const { code, output } = await run(process.execPath, ['--import', 'tsx', join(example, 'client.ts')], { SERVICE_URL: listener.url, SERVICE_API_KEY: apiKey });
    assert.equal(code, 0, output);
    const created = /^created (inv_\S+): pay 0\.00025000 BTC to (\S+)$/m.exec(output);
    assert.ok(created, output);
    assert.match(output, new RegExp(`^read ${created[1]}: pending, expires \\S+$`, 'm'));
    const stored = await fetch(`${listener.url}/invoice/${created[1]}`);
    assert.equal(stored.status, 200);
    assert.equal(((await stored.json()) as { receive_address: string }).receive_address, created[2]);
  });
});
