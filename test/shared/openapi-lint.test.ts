// The OpenAPI document passes Redocly's `recommended` ruleset with no error and no warning.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createConfig, lint } from '@redocly/openapi-core';
import { repoRoot } from '../helpers/child.ts';

const documentPath = join(repoRoot, 'openapi/openapi.json');
const problemsOf = async (ref: string) => {
  const problems = await lint({ ref, config: await createConfig({ extends: ['recommended'] }) });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`);
};

describe("Redocly's recommended rules", () => {
  it('openapi/openapi.json has no error and no warning', async () => {
    assert.deepEqual(await problemsOf(documentPath), []);
  });

  it('the same lint flags a document with a fault (an operation without a 2xx answer)', async () => {
    const document = JSON.parse(readFileSync(documentPath, 'utf8'));
    document.paths['/health'].get.responses = { '500': { description: 'broken' } };
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const broken = join(dir, 'openapi.json');
      writeFileSync(broken, JSON.stringify(document));
      const problems = await problemsOf(broken);
      assert.ok(problems.some((p) => p.includes('operation-2xx-response') && p.includes('/paths/~1health/get/responses')), problems.join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
