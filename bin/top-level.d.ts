// Types for bin/top-level.js, plain JavaScript because bin/service.js reads it before anything is compiled.
export const topLevelArgs: readonly string[];
export const topLevelSources: readonly string[];
export function answeredByTopLevel(args: readonly string[]): boolean;
