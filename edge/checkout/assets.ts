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

/** A static file named by its content hash; `dir` is the folder URL (ending in `/`) it is read from. */
export function loadHashedAsset(dir: URL, file: string, type: string): CheckoutAsset {
  const body = readFileSync(new URL(file, dir));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  const [stem, ext] = file.split('.');
  return {
    name: `${stem}.${hash}.${ext}`,
    body,
    type,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  };
}

const publicDir = new URL('./public/', import.meta.url);

/** The page's stylesheet and script, served as files: the Content-Security-Policy allows no inline code. */
export function loadCheckoutAssets(): CheckoutAssets {
  return {
    css: loadHashedAsset(publicDir, 'checkout.css', 'text/css; charset=utf-8'),
    js: loadHashedAsset(publicDir, 'checkout.js', 'text/javascript; charset=utf-8'),
  };
}
