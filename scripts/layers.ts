/**
 * Checks the layout against the architecture: every import between the project's own files,
 * static or dynamic, is resolved and held against the layer table below. Prints the import
 * cycles between files and the imports that run against the layers; exits 1 when there is any.
 *
 *   npx tsx scripts/layers.ts [--json]
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Which top-level folders each folder may import from (itself always). */
const allowedImports: Record<string, string[]> = {
  shared: [],
  core: ['shared'],
  mcp: ['shared', 'core'],
  edge: ['shared', 'core', 'mcp'],
  // The local chains for trying the service out (`service start` with no chain settings), in either edition.
  sandbox: ['shared', 'core', 'edge'],
  listener: ['shared', 'core', 'mcp', 'edge', 'sandbox'],
  cloud: ['shared', 'core', 'mcp', 'edge', 'sandbox'],
  bench: ['shared', 'core', 'mcp', 'edge', 'sandbox', 'listener', 'cloud', 'bin'],
  scripts: ['shared', 'core', 'mcp', 'edge', 'sandbox', 'listener', 'cloud', 'bin'],
  bin: ['shared', 'core', 'mcp', 'edge', 'sandbox', 'listener', 'cloud'],
};

/**
 * Inside the core the engine sees chains only through the chain definition (core/chain-definition.ts),
 * one chain knows nothing of another, and only the entry points' list (core/chains/default-chains.ts)
 * names the chains. `core/*.ts` stands for the files at the root of core/ (the engine, the schema).
 */
const chainFolders = ['btc', 'evm', 'chains'];
const coreFolderRules: Record<string, string[]> = {
  '*.ts': chainFolders,
  invoices: chainFolders,
  webhooks: chainFolders,
  events: chainFolders,
  oauth: chainFolders,
  x402: chainFolders,
  btc: ['evm', 'chains'],
  evm: ['btc', 'chains'],
  db: ['invoices', 'webhooks', 'events', ...chainFolders],
  net: ['invoices', 'webhooks', 'events', 'db', ...chainFolders],
};

/** The editions, which get their chains passed in and reach them only through the chain definition. */
const editionFolders = ['listener', 'cloud', 'edge', 'mcp', 'sandbox'];
/** The chain folders no edition imports. */
const chainFolderPaths = ['core/btc/', 'core/evm/'];

/**
 * Where a chain may be named: its own folder (core/btc, core/evm: the EVM family, one file per EVM
 * chain in core/evm/chains/), the entry points' list of chains (core/chains/default-chains.ts) and
 * the contract's chain list (shared/chains.ts). Anywhere else a chain is found in the list of chains
 * passed in.
 */
const chainHomes = ['core/btc/', 'core/evm/', 'core/chains/', 'shared/chains.ts'];
/** Folders whose files are checked for chain names. */
const chainCheckedRoots = ['shared', 'core', 'mcp', 'edge', 'listener', 'cloud', 'bin'];
/** Chain names as string literals ('base', "eth"), and per-chain identifiers such as base_xpub or btc_network. */
const chainNamePattern = /(['"`])(?:btc|bitcoin|base|eth|ethereum|polygon|arbitrum)\1|\b(?:btc|base|eth|polygon|arbitrum)_(?:xpub|address|network|chain_id|disabled)\b/g;

/**
 * Files outside the chain homes that still name chains, with how many times, as this branch left
 * them: test/scripts/layers.test.ts pins this list, so it can only shrink (a file made clean must leave it).
 */
export const chainNameAllowList: readonly string[] = [
  'shared/checkout.ts',
  'shared/cloud.ts',
  'shared/errors.ts',
  'shared/health.ts',
  'shared/invoice.ts',
  'shared/llms.ts',
  'shared/routes.ts',
  'mcp/tool-error.ts',
  'cloud/cloud-app.ts',
  'cloud/storage/cloud.migration.ts',
  'cloud/storage/cloud.schema.ts',
  'cloud/storage/cloud.tables.ts',
  'cloud/merchants/fixed-address-claims.migration.ts',
  'cloud/merchants/merchant-context.ts',
  // The older signup fields and columns (btc_xpub, base_xpub, base_address), read and written for compatibility.
  'cloud/merchants/receive-methods.ts',
];

export interface ChainNameReport {
  /** Occurrences per file outside the chain homes. */
  files: Record<string, number>;
  count: number;
}

/** How many chain names a source text holds, comments not counted. */
export function chainNamesIn(source: string): number {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  return code.match(chainNamePattern)?.length ?? 0;
}

/** Where chain names appear outside the chain homes. */
export function chainNameReport(): ChainNameReport {
  const files: Record<string, number> = {};
  for (const dir of chainCheckedRoots) {
    for (const file of sourceFiles(join(root, dir))) {
      const path = relative(root, file);
      if (chainHomes.some((home) => path.startsWith(home))) continue;
      const hits = chainNamesIn(readFileSync(file, 'utf8'));
      if (hits > 0) files[path] = hits;
    }
  }
  return { files, count: Object.values(files).reduce((sum, n) => sum + n, 0) };
}

const sourceExtensions = ['.ts', '.js'];

export interface LayerReport {
  files: number;
  imports: number;
  cycles: string[][];
  violations: { from: string; to: string; rule: string }[];
  /** Edition files that import a chain folder (none may: each is told as a violation too). */
  chainImporters: string[];
}

function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) found.push(...sourceFiles(path));
    else if (sourceExtensions.some((ext) => name.endsWith(ext)) && !name.endsWith('.d.ts')) found.push(path);
  }
  return found;
}

const importPattern = /(?:^|[^.\w])(?:import|export)\s*(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/gm;

function importedFiles(file: string, known: Set<string>): string[] {
  const text = readFileSync(file, 'utf8');
  const targets: string[] = [];
  for (const match of text.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2];
    const target = resolve(dirname(file), specifier);
    const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')];
    const hit = candidates.find((candidate) => known.has(candidate));
    if (hit) targets.push(hit);
  }
  return targets;
}

function topFolder(path: string): string {
  return path.split('/')[0];
}

export function ruleBroken(from: string, to: string): string | undefined {
  const fromTop = topFolder(from);
  const toTop = topFolder(to);
  if (fromTop !== toTop) {
    const allowed = allowedImports[fromTop];
    if (allowed && !allowed.includes(toTop)) return `${fromTop}/ may not import ${toTop}/`;
    if (editionFolders.includes(fromTop) && chainFolderPaths.some((folder) => to.startsWith(folder))) {
      return `${fromTop}/ may not import a chain folder (${to.split('/').slice(0, 2).join('/')}/): it is given its chains`;
    }
    return undefined;
  }
  if (fromTop !== 'core') return undefined;
  const coreFolder = (path: string) => (path.split('/').length === 2 ? '*.ts' : path.split('/')[1]);
  const fromFolder = coreFolder(from);
  const toFolder = coreFolder(to);
  if (fromFolder === toFolder) return undefined;
  if (coreFolderRules[fromFolder]?.includes(toFolder)) return `core/${fromFolder}${fromFolder === '*.ts' ? '' : '/'} may not import core/${toFolder}/`;
  return undefined;
}

/** Tarjan's strongly connected components; a component of two or more files is a cycle. */
function cyclesOf(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return components;
}

export function checkLayers(): LayerReport {
  const roots = Object.keys(allowedImports).filter((dir) => {
    try {
      return statSync(join(root, dir)).isDirectory();
    } catch {
      return false;
    }
  });
  const files = roots.flatMap((dir) => sourceFiles(join(root, dir)));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  const violations: LayerReport['violations'] = [];
  let imports = 0;
  const chainImporters = new Set<string>();
  for (const file of files) {
    const from = relative(root, file);
    const targets = importedFiles(file, known).map((target) => relative(root, target));
    imports += targets.length;
    graph.set(from, targets);
    if (editionFolders.includes(topFolder(from)) && targets.some((to) => chainFolderPaths.some((folder) => to.startsWith(folder)))) chainImporters.add(from);
    for (const to of targets) {
      const rule = ruleBroken(from, to);
      if (rule) violations.push({ from, to, rule });
    }
  }
  return { files: files.length, imports, cycles: cyclesOf(graph), violations, chainImporters: [...chainImporters].sort() };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--help')) {
    console.log('Usage: tsx scripts/layers.ts [--json]\nLists import cycles between files and imports that run against the layers; exits 1 if any. Also lists the files outside the chain folders that name chains.');
    process.exit(0);
  }
  const report = checkLayers();
  const chainNames = chainNameReport();
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ ...report, chainNames }, null, 2));
  } else {
    console.log(`${report.files} files, ${report.imports} imports between them`);
    console.log(`import cycles: ${report.cycles.length}`);
    for (const cycle of report.cycles) console.log(`  ${cycle.join(' <-> ')}`);
    console.log(`imports against the layers: ${report.violations.length}`);
    for (const v of report.violations) console.log(`  ${v.from} -> ${v.to}  (${v.rule})`);
    const named = Object.entries(chainNames.files);
    console.log(`chain names outside the chain folders: ${chainNames.count} in ${named.length} files (allowed for now: ${chainNameAllowList.length})`);
    for (const [file, hits] of named) console.log(`  ${file}: ${hits}${chainNameAllowList.includes(file) ? '' : '  (not in the allow-list)'}`);
  }
  process.exit(report.cycles.length + report.violations.length > 0 ? 1 : 0);
}
