import assert from 'node:assert/strict';
import { test } from 'node:test';
import { functionLabel, longFunctions, longFunctionsIn, sourceFiles } from '../../scripts/function-lengths.ts';

test('no function in the source outside test/ is over 100 lines', () => {
  const files = sourceFiles();
  assert.ok(files.length > 200, `only ${files.length} files were read: the checker lost its way`);
  for (const reached of ['bench/run.ts', 'scripts/layers.ts', 'edge/checkout/public/checkout.js', 'bin/build.js']) assert.ok(files.includes(reached), `${reached} is not checked`);
  assert.ok(!files.some((file) => file.startsWith('test/') || file.endsWith('.d.ts')), 'tests and declaration files are not checked');
  assert.ok(!files.includes('examples/typed-client/api.d.ts'));

  assert.deepEqual(
    longFunctions(files).map(functionLabel),
    [],
    'these functions are over 100 lines: split them into named pieces with one job each (npx tsx scripts/function-lengths.ts lists them)',
  );
});

const body = (lines: number) => Array.from({ length: lines - 2 }, (_, i) => `  step(${i});`).join('\n');

test('the check measures every kind of function from its first line to its last, and names it', () => {
  const source = [
    `export function declared() {\n${body(101)}\n}`,
    `const arrow = async () => {\n${body(102)}\n};`,
    `const expression = function () {\n${body(101)}\n};`,
    `class Store {\n  method(): void {\n${body(101)}\n  }\n  #hidden() {\n${body(101)}\n  }\n}`,
    `const handlers = {\n  handle(x: number) {\n${body(101)}\n  },\n  other: (y: string) => {\n${body(101)}\n  },\n};`,
    `register('route', () => {\n${body(101)}\n});`,
    `(() => {\n${body(101)}\n})();`,
    `export function exactlyAtTheLimit() {\n${body(100)}\n}`,
    `type Shape<T> = { readonly [K in keyof T]: T[K] };\nconst typed = { a: 1 } satisfies Shape<{ a: number }>;\nconst cast = <T,>(value: unknown) => value as T;`,
  ].join('\n');
  const found = longFunctionsIn('sample.ts', source).map((fn) => `${fn.name} ${fn.lines}`);
  assert.deepEqual(found, [
    'declared 101',
    'arrow 102',
    'expression 101',
    'method 101',
    '#hidden 101',
    'handle 101',
    'other 101',
    'register(…) 101',
    '(immediately invoked) 101',
  ]);
});

test('an outer function counts its nested functions\' lines; plain JavaScript is read as JavaScript', () => {
  const nested = `function outer() {\n  const inner = () => {\n${body(60)}\n  };\n${body(50)}\n}`;
  assert.deepEqual(
    longFunctionsIn('browser.js', nested).map((fn) => [fn.name, fn.lines, fn.line]),
    [['outer', 110, 1]],
  );
});
