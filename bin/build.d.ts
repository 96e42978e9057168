// Types for bin/build.js, which is plain JavaScript because it runs before anything is compiled.
export type BuildOutcome = 'fresh' | 'built' | 'no-compiler';
export function builtPath(source: string, root?: string): string;
export function runTsc(args: string[], root?: string): void;
export function isFresh(root?: string, only?: readonly string[]): boolean;
export function ensureBuilt(options?: { root?: string; log?: (line: string) => void; loads?: readonly string[] }): Promise<BuildOutcome>;
export function runBuilt(source: string, options?: { loads?: readonly string[] }): Promise<unknown>;
