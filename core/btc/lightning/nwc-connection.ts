import { getPublicKey } from 'nostr-tools/pure';
import { nip47 } from 'nostr-tools';

/** A Nostr Wallet Connect connection: the wallet service's key, the relays it listens on, this client's secret. */
export interface NwcConnection {
  walletPubkey: string;
  relays: string[];
  /** The client secret key the wallet issued for this connection: never logged, never returned. */
  secret: Uint8Array;
  clientPubkey: string;
}

export class NwcConnectionError extends Error {}

const HEX_KEY = /^[0-9a-f]{64}$/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/**
 * Reads a `nostr+walletconnect://<wallet pubkey>?relay=…&secret=…` URI. Relays must be wss://; a
 * ws:// relay is taken on a loopback host only when `loopbackRelays` allows it (the sandbox, tests),
 * because a plain socket lets anyone between see which wallet asks for what.
 */
export function parseNwcConnection(text: string, options: { loopbackRelays: boolean }): NwcConnection {
  const trimmed = text.trim();
  if (!trimmed.startsWith('nostr+walletconnect://')) throw new NwcConnectionError('must start with nostr+walletconnect://');
  let parsed: ReturnType<typeof nip47.parseConnectionString>;
  try {
    parsed = nip47.parseConnectionString(trimmed);
  } catch {
    throw new NwcConnectionError('is not a Nostr Wallet Connect URI');
  }
  const walletPubkey = parsed.pubkey.toLowerCase();
  if (!HEX_KEY.test(walletPubkey)) throw new NwcConnectionError("names no wallet key (64 hex characters after nostr+walletconnect://)");
  const secretHex = (parsed.secret ?? '').toLowerCase();
  if (!HEX_KEY.test(secretHex)) throw new NwcConnectionError('has no secret (secret=<64 hex characters>)');
  const relays = [...new Set(parsed.relays.map((relay) => relay.trim()).filter(Boolean))];
  if (relays.length === 0) throw new NwcConnectionError('names no relay (relay=wss://…)');
  for (const relay of relays) {
    let url: URL;
    try {
      url = new URL(relay);
    } catch {
      throw new NwcConnectionError(`relay ${relay} is not a URL`);
    }
    if (url.protocol === 'wss:') continue;
    if (url.protocol === 'ws:' && options.loopbackRelays && LOOPBACK.has(url.hostname)) continue;
    throw new NwcConnectionError(`relay ${relay} must be wss:// (ws:// only to a loopback relay outside production)`);
  }
  const secret = Uint8Array.from(Buffer.from(secretHex, 'hex'));
  return { walletPubkey, relays, secret, clientPubkey: getPublicKey(secret) };
}

/** A wallet key as pages and logs show it: its first 8 and last 4 characters. */
export const shortWalletKey = (walletPubkey: string): string => `${walletPubkey.slice(0, 8)}…${walletPubkey.slice(-4)}`;

/** The connection as logs and pages may show it: the wallet key shortened, the relays, never the secret. */
export function describeNwcConnection(connection: Pick<NwcConnection, 'walletPubkey' | 'relays'>): string {
  return `wallet ${shortWalletKey(connection.walletPubkey)} via ${connection.relays.join(', ')}`;
}
