#!/usr/bin/env node
// The `service` command: runs the compiled CLI (bin/cli.ts in dist/), compiling it first when needed.
// `--version` and `--help` check only the few sources they load, not the whole tree.
import { runBuilt } from './build.js';
import { answeredByTopLevel, topLevelSources } from './top-level.js';

await runBuilt('bin/cli.ts', answeredByTopLevel(process.argv.slice(2)) ? { loads: topLevelSources } : {});
