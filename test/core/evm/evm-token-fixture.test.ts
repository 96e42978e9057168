import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileTestToken } from '../../fixtures/compile-test-token.ts';

test('the committed TestToken bytecode is what solc compiles from TestToken.sol', () => {
  const committed = JSON.parse(readFileSync(new URL('../../../sandbox/TestToken.json', import.meta.url), 'utf8'));
  assert.deepEqual(compileTestToken(), committed);
});
