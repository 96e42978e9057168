#!/usr/bin/env node
// Runs the TypeScript CLI without a build step, from any working directory.
import { register } from 'tsx/esm/api';

register();
await import('./cli.ts');
