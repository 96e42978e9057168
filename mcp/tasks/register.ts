import * as z from 'zod';
import type { McpServer, Server, ServerContext } from '@modelcontextprotocol/server';
import type { ServerDeps } from '../deps.ts';
import { WaitForPaymentArgs } from '../tools/wait-for-payment.ts';
import { declaresTasks, requireTasks, TASKS_EXTENSION } from './extension.ts';
import { paymentTasks, type PaymentTaskOptions } from './payment-tasks.ts';

type RequestHandler = (request: { method: string; params?: { name?: unknown; arguments?: unknown } }, ctx: ServerContext) => Promise<unknown>;

/**
 * Answers `tool`'s calls with `answer`'s result when it gives one, else as the McpServer does.
 *
 * Hand-written because SDK 2.4 has no tasks extension and no hook for it: its McpServer checks each
 * tool result against CallToolResult and the tool's outputSchema (a CreateTaskResult has neither
 * content nor structuredContent), and the Server's own tools/call wrapper would add `content: []`
 * to it. So the McpServer's tools/call handler is wrapped in the SDK's handler table, the one
 * place that sees the call before both checks. Every other call, and every call `answer` declines,
 * goes through the McpServer's handler unchanged. Fails at registration (a test then fails) if an
 * SDK update moves that table.
 */
function answerToolCallFirst(server: Server, tool: string, answer: (args: unknown, ctx: ServerContext) => Promise<object | undefined>): void {
  const handlers = (server as unknown as { _requestHandlers?: Map<string, RequestHandler> })._requestHandlers;
  const toolsCall = handlers?.get('tools/call');
  if (!handlers || !toolsCall) throw new Error(`Register the MCP tools before ${tool}'s tasks: the SDK has no tools/call handler to wrap (or no longer keeps it where this expects).`);
  handlers.set('tools/call', async (request, ctx) => (request.params?.name === tool && (await answer(request.params.arguments, ctx))) || toolsCall(request, ctx));
}

const TaskIdParams = z.object({ taskId: z.string() });
const UpdateParams = TaskIdParams.extend({ inputResponses: z.record(z.string(), z.unknown()).optional() });
const AnyResult = z.looseObject({});

/**
 * The tasks extension for wait_for_payment, on a server built for one 2026-07-28 request (call it
 * after the tools are registered, and only for that era: 2025-era sessions keep the blocking tool).
 * Advertises the extension in server/discover; a wait_for_payment call whose request declares the
 * extension is answered with a task; tasks/get, tasks/cancel and tasks/update serve those tasks.
 * The SDK dispatches the three methods as custom methods: it reserves tasks/get and tasks/cancel
 * on this era for an extension to define (tasks/result and tasks/list stay unknown, -32601).
 */
export function registerPaymentTasks(mcp: McpServer, deps: Pick<ServerDeps, 'listener' | 'chains' | 'onToolCall'>, options: PaymentTaskOptions): void {
  const tasks = paymentTasks(deps, options);
  mcp.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  mcp.server.setRequestHandler('tasks/get', { params: TaskIdParams, result: AnyResult }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    return tasks.get(taskId);
  });
  mcp.server.setRequestHandler('tasks/cancel', { params: TaskIdParams, result: AnyResult }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    return tasks.cancel(taskId);
  });
  mcp.server.setRequestHandler('tasks/update', { params: UpdateParams, result: AnyResult }, async ({ taskId }, ctx) => {
    requireTasks(ctx);
    return tasks.update(taskId);
  });
  answerToolCallFirst(mcp.server, 'wait_for_payment', async (args, ctx) => {
    if (!declaresTasks(ctx)) return undefined;
    // Arguments the tool would refuse go to it, which refuses them as it always has.
    const parsed = WaitForPaymentArgs.safeParse(args ?? {});
    if (!parsed.success) return undefined;
    const created = await tasks.create(parsed.data);
    deps.onToolCall?.('wait_for_payment', 'isError' in created ? 'error' : 'ok');
    return created;
  });
}
