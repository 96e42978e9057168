import type { Context } from 'koa';
import { ServiceError } from '../../errors.ts';
import { MAX_BODY_BYTES } from '../../http/json-body.ts';

/** Reads an `application/x-www-form-urlencoded` body of at most 16 KB into plain fields. */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new ServiceError('bad_body', 'Expected a form submission.');
  if (Number(ctx.get('Content-Length') || 0) > MAX_BODY_BYTES) throw new ServiceError('bad_body', 'The form is too large.');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ServiceError('bad_body', 'The form is too large.');
    chunks.push(chunk as Buffer);
  }
  return Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}
