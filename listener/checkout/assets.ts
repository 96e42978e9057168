import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface CheckoutAsset {
  /** File name with a content hash, so it can be cached for a year and never go stale. */
  name: string;
  body: Buffer;
  type: string;
  /** Subresource Integrity value for the tag that loads it. */
  integrity: string;
}

export interface CheckoutAssets {
  css: CheckoutAsset;
  js: CheckoutAsset;
}

function load(file: string, type: string): CheckoutAsset {
  const body = readFileSync(new URL(`./public/${file}`, import.meta.url));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const [stem, ext] = file.split('.');
  return {
    name: `${stem}.${hash}.${ext}`,
    body,
    type,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  };
}

/** The page's stylesheet and script, served as files: the Content-Security-Policy allows no inline code. */
export function loadCheckoutAssets(): CheckoutAssets {
  return {
    css: load('checkout.css', 'text/css; charset=utf-8'),
    js: load('checkout.js', 'text/javascript; charset=utf-8'),
  };
}
