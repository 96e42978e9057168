import { createHmac, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';

/**
 * What a wait_for_payment task is, sealed into its id: any instance holding the key can answer a
 * tasks/get from the id and the invoice alone, after a restart or on another Cloud instance.
 */
export const WaitTask = z.object({
  /** The invoice waited on. */
  invoice_id: z.string().min(1).max(200),
  /** Created, in epoch milliseconds. */
  created_ms: z.number().int().nonnegative(),
  /** The wait's timeout_s: after created_ms + timeout_s the answer is "timeout" unless the invoice settled. */
  timeout_s: z.number().int().positive(),
});
export type WaitTask = z.infer<typeof WaitTask>;

/** Longer ids are refused unread: a real one is about 150 characters. */
const MAX_TASK_ID_LENGTH = 512;
const PREFIX = 'wfp1';

/**
 * Seals and opens task ids. The MAC covers the owner (the merchant, or the credential on the
 * listener) without carrying it: another owner's id fails the MAC as a made-up one does, so it is
 * an unknown task to them, and the id shows nobody who made it.
 */
export function taskIds(key: Uint8Array) {
  const mac = (owner: string, body: string) => createHmac('sha256', key).update(`wait_for_payment task\0${owner}\0${body}`).digest();
  return {
    seal(task: WaitTask, owner: string): string {
      const body = Buffer.from(JSON.stringify(task)).toString('base64url');
      return `${PREFIX}.${body}.${mac(owner, body).toString('base64url')}`;
    },
    /** The task, or null for an id that is not one of this owner's (forged, altered, or another's). */
    open(taskId: string, owner: string): WaitTask | null {
      if (taskId.length > MAX_TASK_ID_LENGTH) return null;
      const [prefix, body, tag, ...rest] = taskId.split('.');
      if (prefix !== PREFIX || !body || !tag || rest.length > 0) return null;
      const expected = mac(owner, body);
      const given = Buffer.from(tag, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      try {
        const parsed = WaitTask.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
        return parsed.success ? parsed.data : null;
      } catch {
        return null;
      }
    },
  };
}
export type TaskIds = ReturnType<typeof taskIds>;
