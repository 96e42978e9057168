import type { Middleware } from 'koa';
import { ServiceError } from '../../core/errors.ts';

/** With the `u` flag a surrogate pair is one code point, so only an unpaired surrogate is in category Cs. */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

/**
 * Whether any string in a parsed JSON value (keys included) holds an unpaired UTF-16 surrogate,
 * which no database encoding or UTF-8 writer accepts. Iterative: a 16 KB body can nest thousands deep.
 */
export function holdsMalformedString(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length) {
    const item = pending.pop();
    if (typeof item === 'string') {
      if (UNPAIRED_SURROGATE.test(item)) return true;
    } else if (Array.isArray(item)) {
      pending.push(...item);
    } else if (item !== null && typeof item === 'object') {
      for (const [key, field] of Object.entries(item)) {
        if (UNPAIRED_SURROGATE.test(key)) return true;
        pending.push(field);
      }
    }
  }
  return false;
}

/** Percent-decodes strictly: escapes must spell well-formed UTF-8, else `bad_body`. */
export function decodeUrlComponent(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ServiceError('bad_body', `The ${what} is not well-formed UTF-8 percent-encoding.`);
  }
}

/**
 * Refuses an HTTP/1.1 request without Host (RFC 9112 requires the 400), and a path or query string
 * whose percent-escapes are not well-formed UTF-8: the router and Koa's query parser would otherwise
 * keep the raw text or substitute U+FFFD without a word.
 */
export const wellFormedRequest: Middleware = async (ctx, next) => {
  if (ctx.req.httpVersion === '1.1' && ctx.req.headers.host === undefined) throw new ServiceError('bad_body', 'An HTTP/1.1 request needs a Host header.');
  decodeUrlComponent(ctx.path, 'path');
  for (const pair of ctx.querystring.split('&')) decodeUrlComponent(pair, 'query string');
  await next();
};
