#!/usr/bin/env node
// `npx service-mcp`: runs the TypeScript MCP server on stdio without a build step.
import { register } from 'tsx/esm/api';

register();
await import('./stdio.ts');
