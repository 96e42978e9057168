#!/usr/bin/env node
// The `service` command: runs the compiled CLI (bin/cli.ts in dist/), compiling it first when needed.
import { runBuilt } from './build.js';

await runBuilt('bin/cli.ts');
