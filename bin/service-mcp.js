#!/usr/bin/env node
// `npx service-mcp`: the MCP server on stdio (mcp/stdio.ts, compiled, compiling it first when needed).
import { runBuilt } from './build.js';

await runBuilt('mcp/stdio.ts');
