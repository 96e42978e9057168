import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { SERVICE_BIN } from './process.ts';

const shell = promisify(execFile);

/** A sandbox banner line by its label ("Create:", "Load:") and something it holds, as printed. */
export function bannerLine(output: string, label: string, contains = ''): string {
  const line = output.split('\n').find((l) => l.trimStart().startsWith(label) && l.includes(contains));
  assert.ok(line, `no "${label}" line with ${contains} in the banner:\n${output}`);
  return line.trimStart().slice(label.length).trim();
}

/**
 * A banner command as a shell runs it: its "(…)" comment and "[optional]" arguments dropped, and
 * `npx service` run as this checkout's bin (npx in a temporary directory would look for the
 * package on the registry).
 */
export function runnable(command: string): string {
  return command
    .replace(/\s{2,}\(.*\)$/, '')
    .replace(/ \[[a-z_]+\]/g, '')
    .replace(/npx service /g, `${process.execPath} ${SERVICE_BIN} `)
    .trim();
}

/** Runs lines in one `sh`, in `cwd`, with only PATH from this process: what pasting them into a fresh shell does. */
export async function runLines(lines: string[], cwd: string): Promise<string> {
  const { stdout } = await shell('sh', ['-ec', lines.join('\n')], { cwd, env: { PATH: process.env.PATH } });
  return stdout;
}

/** The block the sandbox's receiver printed for a verified delivery of `type` that mentions `field`, or null. */
export function verifiedWebhook(output: string, type: string, field: string): string | null {
  const heading = new RegExp(`^ {2}\\S+ {2}${type.replace('.', '\\.')} {2}evt_\\S+ {2}attempt 1\\n`);
  const blocks = output.split('WEBHOOK received and signature verified (sandbox receiver):\n').slice(1);
  return blocks.find((block) => heading.test(block) && block.includes(field)) ?? null;
}
