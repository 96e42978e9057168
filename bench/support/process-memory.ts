import { readFileSync, writeFileSync } from 'node:fs';

/** A live process's resident set now (VmRSS) and at its peak (VmHWM), in bytes, from /proc (Linux). */
export function processMemory(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)![1]) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/**
 * Sets a process's peak (VmHWM) back to its resident set now, so the next peak read is of what ran
 * since, not of start-up. False where the kernel refuses (before Linux 4.0, or not our process).
 */
export function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

export const MB = 1024 * 1024;
