/**
 * The fenced code blocks of the README and of every page in docs/, and how each is tested. A
 * block's kind is the HTML comment on the line just before its opening fence:
 *
 *   <!-- readme-test: run -->                      shell: the block's commands run one by one in one
 *                                                   bash session against the sandbox (so `ID=$(…)`
 *                                                   carries to the next line); js: runs with node
 *   <!-- readme-test: receiver, with 9876 = <why> -->  js: a webhook receiver, wired as the sandbox's target
 *   <!-- readme-test: skip: <reason> -->           not run here, and why
 *
 * `json` blocks need no marker: they must parse (a fragment such as `"ok":false,…` inside braces).
 * Every other block without a marker is an error, so a new block cannot go untested unnoticed.
 * A run block never holds an `inv_…` placeholder: it captures the id it needs, as a reader pasting it would.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The README and the manual's pages, as paths relative to the repository root: README first. */
export function docPages(root: string): string[] {
  const pages = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
  return ['README.md', ...pages];
}

export type Kind = 'run' | 'receiver' | 'skip' | 'json';

export interface Block {
  /** The page, relative to the repository root. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The lines between the fences, blockquote prefix removed. */
  lines: string[];
  kind: Kind | null;
  /** Placeholder → the marker's description of what replaces it. */
  substitutions: Map<string, string>;
  /** Why the block is not runnable (skip), or why its marker is wrong. */
  reason: string;
}

/** Placeholders the test knows how to fill; a marker declaring another is an error. */
export const KNOWN_PLACEHOLDERS = ['9876'] as const;

const FENCE = /^(>\s?)?(`{3,}|~{3,})\s*([\w-]*)/;
const MARKER = /^<!--\s*readme-test:\s*(.*?)\s*-->$/;

export function readmeBlocks(markdown: string, file = 'README.md'): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]);
    if (!open) continue;
    const [, quote = '', fence, lang] = open;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const inner = lines[j].startsWith(quote.trimEnd()) ? lines[j].slice(quote.length) : lines[j];
      if (inner.trimEnd() === fence) break;
      body.push(inner);
    }
    const previous = (lines[i - 1] ?? '').slice(quote.length).trim();
    blocks.push({ file, line: i + 1, lang, lines: body, ...classify(lang, MARKER.exec(previous)?.[1]) });
    i = j;
  }
  return blocks;
}

function classify(lang: string, marker: string | undefined): Pick<Block, 'kind' | 'substitutions' | 'reason'> {
  const substitutions = new Map<string, string>();
  if (marker === undefined) {
    if (lang === 'json') return { kind: 'json', substitutions, reason: '' };
    return { kind: null, substitutions, reason: 'no <!-- readme-test: … --> marker before the block (run, receiver or skip: <reason>)' };
  }
  const skip = /^skip:\s*(.+)$/.exec(marker);
  if (skip) return { kind: 'skip', substitutions, reason: skip[1] };
  const runnable = /^(run|receiver)(?:,\s*with\s+(.+))?$/.exec(marker);
  if (!runnable) return { kind: null, substitutions, reason: `marker "${marker}" is none of run, receiver, skip: <reason>` };
  for (const declared of (runnable[2] ?? '').split(';').filter((part) => part.trim())) {
    const [placeholder, description] = declared.split('=').map((part) => part.trim());
    substitutions.set(placeholder, description ?? '');
  }
  return { kind: runnable[1] as Kind, substitutions, reason: '' };
}

/** What is wrong with the block's classification, or null. */
export function classificationProblem(block: Block): string | null {
  if (block.kind === null) return block.reason;
  if (block.kind === 'json') return jsonProblem(block.lines.join('\n'));
  for (const [placeholder, description] of block.substitutions) {
    if (!(KNOWN_PLACEHOLDERS as readonly string[]).includes(placeholder)) return `unknown substitution "${placeholder}" (known: ${KNOWN_PLACEHOLDERS.join(', ')})`;
    if (!description) return `substitution "${placeholder}" says not what replaces it`;
  }
  if (block.kind === 'run' && isShell(block.lang)) {
    const placeholder = shellCommands(block).find((command) => /inv_…/.test(commandPart(command.text)));
    if (placeholder) return `line ${placeholder.line} holds the placeholder inv_…, which fails when pasted: capture the id (ID=$(curl … | jq -r .invoice_id)) and use "$ID"`;
  }
  if (block.kind === 'run' && !isShell(block.lang) && block.lang !== 'js') return `"run" needs a sh or js block, not "${block.lang || 'plain'}"`;
  if (block.kind === 'receiver' && block.lang !== 'js') return `"receiver" needs a js block, not "${block.lang || 'plain'}"`;
  return null;
}

export function isShell(lang: string): boolean {
  return ['sh', 'bash', 'shell'].includes(lang);
}

function jsonProblem(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    try {
      JSON.parse(`{${text}}`); // a fragment of an object, such as "ok":false,"problems":[…]
      return null;
    } catch {
      return `json block does not parse: ${(error as Error).message}`;
    }
  }
}

/** A block's name in failure messages: where it is and how it starts. */
export function describeBlock(block: Block): string {
  const first = block.lines.find((line) => line.trim()) ?? '';
  return `${block.file}:${block.line} (\`\`\`${block.lang || 'plain'}, first line: ${first.replace(/\s+/g, ' ').trim().slice(0, 80)})`;
}

export interface ShellCommand {
  /** 1-based line of the page where the command starts. */
  line: number;
  /** The command as written (continuation lines joined). */
  text: string;
  /** JSON fragments (`"status":"confirmed"`) its trailing comment promises in the output. */
  expects: string[];
}

/** The commands of a shell block: one per line, `\` continuations joined, comment lines dropped. */
export function shellCommands(block: Block): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let pending: { line: number; parts: string[] } | null = null;
  block.lines.forEach((raw, index) => {
    if (!pending && (!raw.trim() || raw.trim().startsWith('#'))) return;
    pending ??= { line: block.line + 1 + index, parts: [] };
    if (raw.endsWith('\\')) {
      pending.parts.push(raw.slice(0, -1));
      return;
    }
    pending.parts.push(raw);
    const text = pending.parts.join('').trim(); // as bash reads it: a backslash-newline is nothing
    commands.push({ line: pending.line, text, expects: [...trailingComment(text).matchAll(/"\w+":("[^"]*"|-?\d+|true|false|null)/g)].map((m) => m[0]) });
    pending = null;
  });
  return commands;
}

/** A command without its trailing comment. */
function commandPart(command: string): string {
  return command.slice(0, command.length - commentLength(command));
}

/** The text after an unquoted ` #`, where a command's comment starts. */
function trailingComment(command: string): string {
  const length = commentLength(command);
  return length ? command.slice(command.length - length + 1) : '';
}

/** How many characters of the command, from its end, are its comment (the `#` included). */
function commentLength(command: string): number {
  let quote: string | null = null;
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
    } else if (c === '#' && (i === 0 || /\s/.test(command[i - 1]))) {
      return command.length - i;
    }
  }
  return 0;
}
