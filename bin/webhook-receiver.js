#!/usr/bin/env node
// `webhook-receiver [options]` is `service webhook-receiver [options]`.
import { register } from 'tsx/esm/api';

register();
process.argv.splice(2, 0, 'webhook-receiver');
await import('./cli.ts');
