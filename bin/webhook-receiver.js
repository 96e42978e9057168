#!/usr/bin/env node
// `webhook-receiver [options]` is `service webhook-receiver [options]`.
import { runBuilt } from './build.js';

process.argv.splice(2, 0, 'webhook-receiver');
await runBuilt('bin/cli.ts');
