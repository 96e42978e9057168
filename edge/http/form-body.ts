import type { Context } from 'koa';
import { ServiceError } from '../../core/errors.ts';
import { readBodyText } from './json-body.ts';
import { decodeUrlComponent } from './well-formed.ts';

/**
 * Reads an `application/x-www-form-urlencoded` body (at most 16 KB) into plain fields; the last of
 * repeated names wins. Escapes that are not well-formed UTF-8 are refused (`bad_body`), where
 * URLSearchParams would quietly turn them into U+FFFD. The fields have no prototype: a field the
 * form lacks reads as undefined even when it is named `constructor` or `toString`.
 */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new ServiceError('bad_body', 'Expected a form submission.');
  const decode = (text: string) => decodeUrlComponent(text.replaceAll('+', ' '), 'form');
  const pairs = (await readBodyText(ctx)).split('&').filter(Boolean);
  const fields: Record<string, string> = Object.create(null);
  for (const pair of pairs) {
    const split = pair.indexOf('=');
    if (split < 0) fields[decode(pair)] = '';
    else fields[decode(pair.slice(0, split))] = decode(pair.slice(split + 1));
  }
  return fields;
}
