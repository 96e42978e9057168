import { CLIENT_CAPABILITIES_META_KEY, MissingRequiredClientCapabilityError, ProtocolErrorCode, type ClientCapabilities, type ServerContext } from '@modelcontextprotocol/server';

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

const REQUIRED = { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } };

/**
 * The JSON-RPC answer to a 2026-07-28 `subscriptions/listen` that asks for task notifications
 * (`taskIds`) without declaring the extension: the extension requires -32021. The SDK's listen
 * filter knows no `taskIds` (it would drop them and acknowledge), so the endpoint asks this before
 * the SDK sees the request. Null for anything else. Task notifications themselves are not sent:
 * a declaring client's acknowledgement lists no task ids, and it polls.
 */
export function undeclaredTaskListen(body: unknown): { jsonrpc: '2.0'; id: unknown; error: { code: number; message: string; data: typeof REQUIRED } } | null {
  const request = body as { method?: unknown; id?: unknown; params?: { notifications?: { taskIds?: unknown }; _meta?: Record<string, unknown> } } | null;
  if (request?.method !== 'subscriptions/listen' || request.params?.notifications?.taskIds === undefined) return null;
  const declared = request.params._meta?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  const extensions = declared?.extensions as Record<string, unknown> | undefined;
  if (extensions !== undefined && Object.hasOwn(extensions, TASKS_EXTENSION)) return null;
  return { jsonrpc: '2.0', id: request.id ?? null, error: { code: ProtocolErrorCode.MissingRequiredClientCapability, message: 'Missing required client capability', data: REQUIRED } };
}

/** Refuses a tasks/* request whose client did not declare the extension (-32021, naming it). */
export function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx)) throw new MissingRequiredClientCapabilityError(REQUIRED);
}
