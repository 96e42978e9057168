/**
 * Lists the functions longer than 100 lines in the project's source: every `.ts`, `.mts`, `.js` and
 * `.mjs` file outside test/ (bench/, scripts/, bin/, the browser scripts and the examples count),
 * less declaration files (no bodies) and generated files (opening with `// Generated … Do not edit.`).
 * A function is a declaration, an expression, an arrow, a method, accessor or constructor; its
 * length runs from its first line to its last, nested functions included.
 *
 *   npx tsx scripts/function-lengths.ts [--json] [files...]
 *
 * Exits 1 when a function is over the limit.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const MAX_FUNCTION_LINES = 100;

export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

const skippedFolders = new Set(['node_modules', 'test', 'dist', 'data', 'test-artifacts']);
const sourcePattern = /\.(?:ts|mts|js|mjs)$/;
const declarationPattern = /\.d\.(?:ts|mts)$/;
const generatedHeader = /^\/\/ Generated .*Do not edit\./;

/** The source files under `dir` (relative to the repository), by the rule above. */
export function sourceFiles(dir = root): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.') || (dir === root && skippedFolders.has(name)) || name === 'node_modules') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (sourcePattern.test(name) && !declarationPattern.test(name) && !generatedHeader.test(readFileSync(path, 'utf8'))) found.push(relative(root, path));
  }
  return found.sort();
}

interface Located {
  type: string;
  loc?: { start: { line: number }; end: { line: number } } | null;
  [key: string]: unknown;
}

const functionTypes = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ObjectMethod',
  'ClassMethod',
  'ClassPrivateMethod',
]);

const isNode = (value: unknown): value is Located => typeof value === 'object' && value !== null && typeof (value as Located).type === 'string';

/** The text a reader finds the function by: its own name, the name it is bound to, or the call it is passed to. */
function nameOf(fn: Located, parent: Located | undefined): string {
  const own = (fn.id as Located | null | undefined) ?? (fn.key as Located | undefined);
  if (own) return keyText(own);
  if (!parent) return '(anonymous)';
  if (parent.type === 'VariableDeclarator') return keyText(parent.id as Located);
  if (parent.type === 'ObjectProperty' || parent.type === 'ClassProperty' || parent.type === 'ClassPrivateProperty') return keyText(parent.key as Located);
  if (parent.type === 'AssignmentExpression') return keyText(parent.left as Located);
  if (parent.type === 'CallExpression' || parent.type === 'NewExpression') {
    return parent.callee === fn ? '(immediately invoked)' : `${keyText(parent.callee as Located)}(…)`;
  }
  return '(anonymous)';
}

function keyText(node: Located): string {
  if (node.type === 'Identifier') return node.name as string;
  if (node.type === 'PrivateName') return `#${keyText(node.id as Located)}`;
  if (node.type === 'StringLiteral' || node.type === 'NumericLiteral') return String(node.value);
  if (node.type === 'MemberExpression') return `${keyText(node.object as Located)}.${keyText(node.property as Located)}`;
  if (node.type === 'ThisExpression') return 'this';
  return '(computed)';
}

/** The functions in one file's text longer than `limit` lines. */
export function longFunctionsIn(file: string, source: string, limit = MAX_FUNCTION_LINES): LongFunction[] {
  const typescript = /\.m?ts$/.test(file);
  const ast = parse(source, {
    sourceType: 'module',
    sourceFilename: file,
    plugins: typescript ? ['typescript'] : [],
    errorRecovery: false,
  });
  const found: LongFunction[] = [];
  const visit = (node: Located, parent: Located | undefined) => {
    if (functionTypes.has(node.type) && node.loc) {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      if (lines > limit) found.push({ file, line: node.loc.start.line, name: nameOf(node, parent), lines });
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === 'loc' || key.endsWith('Comments')) continue;
      for (const child of Array.isArray(value) ? value : [value]) if (isNode(child)) visit(child, node);
    }
  };
  visit(ast.program as unknown as Located, undefined);
  return found;
}

/** Every function over the limit in the project's source (or in the given files), longest first. */
export function longFunctions(files = sourceFiles()): LongFunction[] {
  return files
    .flatMap((file) => longFunctionsIn(file, readFileSync(resolve(root, file), 'utf8')))
    .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file) || a.line - b.line);
}

/** How a function is named in a report: its file and name (lines move as code is edited). */
export const functionLabel = (fn: LongFunction) => `${fn.file} ${fn.name}`;

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--help')) {
    console.log(`Usage: tsx scripts/function-lengths.ts [--json] [files...]\nLists the functions over ${MAX_FUNCTION_LINES} lines in the source outside test/ (or in the given files); exits 1 if there is one.`);
    process.exit(0);
  }
  const files = args.filter((arg) => !arg.startsWith('--')).map((file) => relative(root, resolve(file)));
  const found = longFunctions(files.length ? files : undefined);
  if (args.includes('--json')) console.log(JSON.stringify(found, null, 2));
  else {
    console.log(`functions over ${MAX_FUNCTION_LINES} lines: ${found.length}`);
    for (const fn of found) console.log(`  ${fn.lines} ${fn.file}:${fn.line} ${fn.name}`);
  }
  process.exit(found.length > 0 ? 1 : 0);
}
