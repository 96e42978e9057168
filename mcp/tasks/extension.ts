import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';

/** The MCP tasks extension (SEP-2663), as negotiated on the 2026-07-28 revision. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The capabilities the client declared on this request (2026-07-28 envelope); none on a 2025-era request. */
export function requestCapabilities(ctx: ServerContext): ClientCapabilities | undefined {
  return ctx.mcpReq.envelope?.[CLIENT_CAPABILITIES_META_KEY as keyof typeof ctx.mcpReq.envelope] as ClientCapabilities | undefined;
}

/** Whether this request's client declared the tasks extension: only then may a task be its answer. */
export function declaresTasks(ctx: ServerContext): boolean {
  const extensions = requestCapabilities(ctx)?.extensions as Record<string, unknown> | undefined;
  return extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION);
}

/** Refuses a tasks/* request whose client did not declare the extension (-32021, naming it). */
export function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx)) throw new MissingRequiredClientCapabilityError({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
}
