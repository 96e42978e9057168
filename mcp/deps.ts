import type { Logger } from '../core/log.ts';
import type { ListenerClient } from './listener-client.ts';

/** Everything the MCP server touches outside itself, injected by the entry point (or a test). */
export interface ServerDeps {
  listener: ListenerClient;
  renderQr(uri: string): Buffer;
  logger: Logger;
}
