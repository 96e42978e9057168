import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileEntry {
  name: string;
  /** Share of all samples, percent. */
  selfPct: number;
}

/** The one `.cpuprofile` a process wrote into `dir` (node --cpu-prof --cpu-prof-dir). */
export function readProfileIn(dir: string): CpuProfile {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
}

/** Where a frame's code lives: a package, node's own code, the project's file, or V8 (GC, idle, the program). */
function ownerOf(url: string, functionName: string): string {
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  if (url.startsWith('node:')) return 'node (internals)';
  const project = /\/((?:core|edge|listener|cloud|mcp|shared|sandbox|bin)\/.*)$/.exec(url);
  if (project) return project[1];
  return url || `(${functionName || 'native'})`;
}

/**
 * Self time of a CPU profile: the top functions, and the same samples grouped by who owns the code
 * (a package, node, a project file), each as a share of every sample (idle included, so the shares
 * of a server under load add up to its whole time).
 */
export function summarizeProfile(profile: CpuProfile, top = 12): { functions: ProfileEntry[]; owners: ProfileEntry[]; idlePct: number } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0) || 1;
  const functions = new Map<string, number>();
  const owners = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idleUs += us;
      continue;
    }
    const owner = ownerOf(url, functionName);
    const name = `${functionName || '(anonymous)'} ${owner}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    owners.set(owner, (owners.get(owner) ?? 0) + us);
  }
  const ranked = (shares: Map<string, number>) =>
    [...shares]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, selfPct: Math.round((us / totalUs) * 1000) / 10 }));
  return { functions: ranked(functions), owners: ranked(owners), idlePct: Math.round((idleUs / totalUs) * 1000) / 10 };
}
