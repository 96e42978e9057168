import type { ChainModule } from '../core/invoices/chain-module.ts';

/** What the MCP server knows of a chain: its facts, and how to speak of its invoices. */
export type McpChain = Pick<ChainModule, 'chain' | 'facts' | 'display'>;
