import type { Context } from 'koa';
import { ServiceError } from '../../errors.ts';
import { readBodyText } from '../../http/json-body.ts';

/** Reads an `application/x-www-form-urlencoded` body (at most 16 KB) into plain fields. */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new ServiceError('bad_body', 'Expected a form submission.');
  return Object.fromEntries(new URLSearchParams(await readBodyText(ctx)));
}
