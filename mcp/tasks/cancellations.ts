/**
 * The one part of a task that is not in its id: that it was cancelled. Nothing else about a task is
 * remembered anywhere.
 */
export interface TaskCancellations {
  /** Notes that `taskId` was cancelled at `atMs`; the note may be dropped after `untilMs` (the task's end of life). */
  cancel(taskId: string, atMs: number, untilMs: number): Promise<void>;
  /** When `taskId` was cancelled, or null. */
  cancelledAt(taskId: string): Promise<number | null>;
}

export const MAX_REMEMBERED_CANCELS = 10_000;

/**
 * Cancellations kept in this process, at most `max` at once (the one ending soonest makes room).
 * A cancel reaches only the instance it was sent to: on a deployment of several instances another
 * one keeps answering the task from its invoice, which the extension allows (cancellation is
 * cooperative and eventually consistent); a store shared by the instances makes it exact.
 */
export function memoryCancellations(now: () => number, max = MAX_REMEMBERED_CANCELS): TaskCancellations {
  const cancels = new Map<string, { atMs: number; untilMs: number }>();
  const forgetEnded = () => {
    const time = now();
    for (const [taskId, entry] of cancels) if (entry.untilMs <= time) cancels.delete(taskId);
  };
  return {
    async cancel(taskId, atMs, untilMs) {
      if (cancels.has(taskId)) return;
      if (cancels.size >= max) forgetEnded();
      if (cancels.size >= max) {
        let soonest: string | undefined;
        for (const [id, entry] of cancels) if (soonest === undefined || entry.untilMs < cancels.get(soonest)!.untilMs) soonest = id;
        cancels.delete(soonest!);
      }
      cancels.set(taskId, { atMs, untilMs });
    },
    async cancelledAt(taskId) {
      const entry = cancels.get(taskId);
      if (!entry) return null;
      if (entry.untilMs <= now()) {
        cancels.delete(taskId);
        return null;
      }
      return entry.atMs;
    },
  };
}
