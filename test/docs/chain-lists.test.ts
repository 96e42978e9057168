import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { chainNames } from '../../shared/chains.ts';

test("docs/invoices.md names every chain the contract knows where it lists `chain`'s values", () => {
  const page = readFileSync(new URL('../../docs/invoices.md', import.meta.url), 'utf8');
  const lines = page.split('\n').filter((line) => line.startsWith('| `chain` |') || line.includes('`unsupported_chain`'));
  assert.ok(lines.length >= 2, 'the field row and the error row');
  for (const line of lines) for (const chain of chainNames) assert.ok(line.includes(`\`${chain}\``), `${chain} missing from: ${line}`);
});
