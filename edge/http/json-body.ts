import type { Context } from 'koa';
import { ServiceError } from '../../core/errors.ts';
import type { NumberTexts } from '../../shared/index.ts';
import { topLevelNumberTexts } from './json-number-text.ts';
import { holdsMalformedString } from './well-formed.ts';

export const MAX_BODY_BYTES = 16 * 1024;

/** Reads the body (at most 16 KB) and parses it as JSON. */
export async function readJsonBody(ctx: Context): Promise<unknown> {
  return parseJson(await readBodyText(ctx));
}

/**
 * `readJsonBody`, plus the exact source text of the body's top-level numbers, for a contract
 * that must not see money rounded to a double (amount_usd).
 */
export async function readJsonBodyWithNumberTexts(ctx: Context): Promise<{ body: unknown; numberTexts: NumberTexts }> {
  const text = await readBodyText(ctx);
  return { body: parseJson(text), numberTexts: topLevelNumberTexts(text) };
}

function parseJson(text: string): unknown {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ServiceError('bad_body', 'The body is not valid JSON.');
  }
  // JSON may spell an unpaired surrogate as `\ud800`; no database or UTF-8 writer can store it.
  if (holdsMalformedString(body)) throw new ServiceError('bad_body', 'A string in the body is not well-formed Unicode (unpaired surrogate).');
  return body;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The request body as UTF-8 text, refused (bad_body) beyond `maxBytes` (16 KB) whatever Content-Length
 * claims, or when its bytes are not well-formed UTF-8 (never silently turned into U+FFFD).
 */
export async function readBodyText(ctx: Context, maxBytes = MAX_BODY_BYTES): Promise<string> {
  const declared = Number(ctx.get('Content-Length') || 0);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk as Buffer);
  }
  try {
    return strictUtf8.decode(Buffer.concat(chunks));
  } catch {
    throw new ServiceError('bad_body', 'The body is not well-formed UTF-8.');
  }
}

function tooLarge(maxBytes: number) {
  return new ServiceError('bad_body', `The body is larger than ${maxBytes / 1024} KB.`);
}
