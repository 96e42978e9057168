import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { ListenerClient, ListenerFailure } from '../listener-client.ts';
import type { McpChain } from '../mcp-chain.ts';
import { paymentOutcomeResult, settledOutcome } from '../payment-outcome.ts';
import { toolError } from '../tool-error.ts';
import type { TaskCancellations } from './cancellations.ts';
import { taskIds, type WaitTask } from './task-id.ts';

export interface PaymentTaskOptions {
  /** Seals task ids (HMAC-SHA256, at least 32 bytes): the same key on every instance that may be asked. */
  key: Uint8Array;
  /** Whose tasks this server answers: the merchant on Cloud, the credential on the listener. */
  owner: string;
  /** Shared by every server of the process (one is built per 2026-07-28 request). */
  cancellations: TaskCancellations;
  now?: () => number;
}

/** How often a client should poll: a payment takes seconds (stablecoins) to many minutes (Bitcoin). */
export const TASK_POLL_INTERVAL_MS = 5_000;
/** How long a finished wait stays readable after its deadline. */
export const TASK_RETAIN_MS = 10 * 60_000;

type TaskStatus = 'working' | 'completed' | 'cancelled';

const iso = (ms: number) => new Date(ms).toISOString();
const deadlineOf = (task: WaitTask) => task.created_ms + task.timeout_s * 1000;
const ttlMsOf = (task: WaitTask) => task.timeout_s * 1000 + TASK_RETAIN_MS;
/** A failure another read may not repeat: the listener away, busy or failing. */
const transient = (failure: ListenerFailure) => failure.status === undefined || failure.status === 429 || failure.status >= 500;
const unknownTask = (why: string) => new ProtocolError(ProtocolErrorCode.InvalidParams, `Failed to retrieve task: ${why}`);

/**
 * wait_for_payment as tasks of the tasks extension, kept nowhere: the id seals the invoice, the
 * owner binding and the deadline, and every read works the status out from the invoice as it is
 * now. Only a cancellation is noted (see TaskCancellations).
 */
export function paymentTasks({ listener, chains }: { listener: Pick<ListenerClient, 'getInvoice'>; chains: readonly McpChain[] }, options: PaymentTaskOptions) {
  const ids = taskIds(options.key);
  const now = options.now ?? Date.now;

  const fields = (taskId: string, task: WaitTask, status: TaskStatus, lastUpdatedMs: number, statusMessage: string) => ({
    taskId,
    status,
    statusMessage,
    createdAt: iso(task.created_ms),
    lastUpdatedAt: iso(Math.max(task.created_ms, lastUpdatedMs)),
    ttlMs: ttlMsOf(task),
    pollIntervalMs: TASK_POLL_INTERVAL_MS,
  });

  /** This owner's live task of that id; anything else is an unknown task (-32602). */
  function open(taskId: string): WaitTask {
    const task = ids.open(taskId, options.owner);
    if (!task) throw unknownTask('Task not found');
    if (now() >= task.created_ms + ttlMsOf(task)) throw unknownTask('Task has expired');
    return task;
  }

  /** The task as its invoice says now, its result inlined once it completed. */
  async function current(taskId: string, task: WaitTask) {
    const read = await listener.getInvoice(task.invoice_id);
    const time = now();
    if (!read.ok) {
      if (transient(read.failure)) return fields(taskId, task, 'working', task.created_ms, `The invoice could not be read just now (${read.failure.code}); still waiting.`);
      return { ...fields(taskId, task, 'completed', time, `${read.failure.code}: ${read.failure.message}`), result: toolError(read.failure) };
    }
    const invoice = read.value;
    const settled = settledOutcome(invoice);
    if (settled) return { ...fields(taskId, task, 'completed', Math.min(time, Date.parse(invoice.updated_at)), `Invoice ${settled}.`), result: paymentOutcomeResult(chains, settled, invoice, task.timeout_s) };
    const deadline = deadlineOf(task);
    if (time >= deadline) return { ...fields(taskId, task, 'completed', deadline, `Still ${invoice.status} after ${task.timeout_s} s.`), result: paymentOutcomeResult(chains, 'timeout', invoice, task.timeout_s) };
    return fields(taskId, task, 'working', task.created_ms, `Invoice ${invoice.status}; waiting until ${iso(deadline)}.`);
  }

  return {
    /**
     * Starts a wait: a tool error at once when the invoice cannot be read (as the blocking tool
     * answers), otherwise the CreateTaskResult, readable by tasks/get from the moment it is sent.
     */
    async create(args: { invoice_id: string; timeout_s: number }) {
      const read = await listener.getInvoice(args.invoice_id);
      if (!read.ok) return toolError(read.failure);
      const task: WaitTask = { invoice_id: args.invoice_id, created_ms: now(), timeout_s: args.timeout_s };
      const taskId = ids.seal(task, options.owner);
      return { resultType: 'task' as const, ...fields(taskId, task, 'working', task.created_ms, `Waiting for invoice ${args.invoice_id} (${read.value.status}).`) };
    },

    async get(taskId: string) {
      const task = open(taskId);
      const cancelledAt = await options.cancellations.cancelledAt(taskId);
      if (cancelledAt !== null) return fields(taskId, task, 'cancelled', cancelledAt, 'Cancelled by the client.');
      return current(taskId, task);
    },

    /** Notes the cancel unless the wait already ended: a completed task stays completed. */
    async cancel(taskId: string): Promise<Record<string, never>> {
      const task = open(taskId);
      if ((await current(taskId, task)).status === 'working') await options.cancellations.cancel(taskId, now(), task.created_ms + ttlMsOf(task));
      return {};
    },

    /** This wait never asks for input: an update of a live task is acknowledged and ignored. */
    async update(taskId: string): Promise<Record<string, never>> {
      open(taskId);
      return {};
    },
  };
}
export type PaymentTasks = ReturnType<typeof paymentTasks>;
