import { createHash, randomBytes } from 'node:crypto';

export const API_KEY_PREFIX_LENGTH = 12;

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new key, shown once: `sk_` and 32 random bytes. Only its hash and first characters are kept. */
export function newApiKey(): { key: string; hash: string; prefix: string } {
  const key = `sk_${randomBytes(32).toString('base64url')}`;
  return { key, hash: hashApiKey(key), prefix: key.slice(0, API_KEY_PREFIX_LENGTH) };
}

export const KEY_LABEL_MAX = 60;

/** What a key may do: everything (null), or only some of the invoice scopes. */
export const KEY_ACCESS = { full: null, read: ['invoices:read'], create: ['invoices:write'], invoices: ['invoices:read', 'invoices:write'] } as const;

/**
 * The scopes of an access level as named in a form (`read`, `create`, …; absent: full access);
 * undefined when the name is none of KEY_ACCESS's own (`constructor` is not an access level).
 */
export function keyAccessOf(name: string | undefined): readonly string[] | null | undefined {
  if (name === undefined) return null;
  return Object.hasOwn(KEY_ACCESS, name) ? KEY_ACCESS[name as keyof typeof KEY_ACCESS] : undefined;
}

/** A key's scopes as asked for (absent: full access); null when the list names an unknown scope or none. */
export function parseKeyScopes(value: unknown): { scopes: string | null } | null {
  if (value === undefined || value === null) return { scopes: null };
  if (!Array.isArray(value) || value.length === 0) return null;
  const known = new Set<string>(KEY_ACCESS.invoices);
  if (!value.every((s) => typeof s === 'string' && known.has(s))) return null;
  return { scopes: [...new Set(value as string[])].sort().join(' ') };
}

/** A key's label as typed (trimmed): 1-60 characters, no control characters; null when it is not one. */
export function parseKeyLabel(text: unknown): string | null {
  if (typeof text !== 'string') return null;
  const label = text.trim();
  const length = [...label].length;
  return length >= 1 && length <= KEY_LABEL_MAX && !/\p{Cc}/u.test(label) ? label : null;
}
