import type { Context } from 'koa';
import { ServiceError } from '../../core/errors.ts';
import { readBodyText } from './json-body.ts';
import { decodeUrlComponent } from './well-formed.ts';

/**
 * Reads an `application/x-www-form-urlencoded` body (at most 16 KB) into plain fields; the last of
 * repeated names wins. Escapes that are not well-formed UTF-8 are refused (`bad_body`), where
 * URLSearchParams would quietly turn them into U+FFFD.
 */
export async function readFormBody(ctx: Context): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) throw new ServiceError('bad_body', 'Expected a form submission.');
  const decode = (text: string) => decodeUrlComponent(text.replaceAll('+', ' '), 'form');
  const pairs = (await readBodyText(ctx)).split('&').filter(Boolean);
  return Object.fromEntries(
    pairs.map((pair) => {
      const split = pair.indexOf('=');
      return split < 0 ? [decode(pair), ''] : [decode(pair.slice(0, split)), decode(pair.slice(split + 1))];
    }),
  );
}
