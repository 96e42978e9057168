import { nip04, nip44 } from 'nostr-tools';
import type { VerifiedEvent } from 'nostr-tools/pure';
import { signNostrEvent } from '../../nostr/event-signature.ts';
import type { Clock } from '../../clock.ts';
import type { NwcConnection } from './nwc-connection.ts';
import type { RelayPool } from './relay-pool.ts';

/** NIP-47 event kinds. */
export const NWC_INFO = 13194;
const NWC_REQUEST = 23194;
const NWC_RESPONSE = 23195;
const NWC_NOTIFICATION_NIP04 = 23196;
const NWC_NOTIFICATION_NIP44 = 23197;

export type NwcEncryption = 'nip44' | 'nip04';

/** A transaction as NIP-47 reports it (make_invoice, lookup_invoice, payment_received); amounts in msat. */
export interface NwcTransaction {
  type?: string;
  state?: string;
  invoice?: string;
  description?: string;
  payment_hash: string;
  preimage?: string;
  amount: number;
  created_at?: number;
  expires_at?: number;
  settled_at?: number;
}

export interface NwcNotification {
  notification_type: string;
  notification: NwcTransaction;
}

/** What the wallet says it is and may do for this connection (get_info and its info event). */
export interface NwcWalletInfo {
  methods: string[];
  notifications: string[];
  encryption: NwcEncryption;
  network: string | null;
  alias: string | null;
  /** The Lightning node key get_info names (hex); the BOLT11 signatures are checked against what they recover, not this. */
  nodePubkey: string | null;
}

/** The wallet answered with a NIP-47 error (NOT_FOUND, RESTRICTED, …). */
export class NwcWalletError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface NwcClientOptions {
  pool: RelayPool;
  clock: Clock;
  /** How long one request may wait for the wallet's answer. */
  requestTimeoutMs?: number;
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);

/**
 * A Nostr Wallet Connect client for one connection: requests to the merchant's wallet and its
 * notifications, over the shared relay pool. Only events the wallet's key signed and tagged to this
 * connection reach it (the pool checks), and their content must decrypt with the connection's key.
 */
export function createNwcClient(connection: NwcConnection, options: NwcClientOptions) {
  const { pool, clock } = options;
  const requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  const waiting = new Map<string, (event: VerifiedEvent) => void>();
  const notified = new Set<(notification: NwcNotification) => void>();
  let encryption: NwcEncryption | null = null;
  const { encrypt, decrypt } = connectionCipher(connection);

  function deliverNotification(event: VerifiedEvent) {
    const scheme: NwcEncryption = event.kind === NWC_NOTIFICATION_NIP44 ? 'nip44' : 'nip04';
    // A wallet that speaks NIP-44 sends both kinds; the one this connection negotiated is enough.
    if (encryption && scheme !== encryption) return;
    const parsed = notificationOf(() => decrypt(event, scheme));
    if (parsed) for (const listener of notified) listener(parsed);
  }

  const subscription = pool.listen(connection.relays, {
    walletPubkey: connection.walletPubkey,
    clientPubkey: connection.clientPubkey,
    kinds: [NWC_RESPONSE, NWC_NOTIFICATION_NIP04, NWC_NOTIFICATION_NIP44],
    onEvent(event) {
      if (event.kind !== NWC_RESPONSE) return deliverNotification(event);
      const requestId = event.tags.find((t) => t[0] === 'e')?.[1];
      const resolve = requestId ? waiting.get(requestId) : undefined;
      if (resolve) resolve(event);
    },
  });

  async function request<T>(method: string, params: Record<string, unknown>, timeoutMs = requestTimeoutMs): Promise<T> {
    const scheme = encryption ?? (encryption = (await negotiateEncryption(pool, connection, timeoutMs)).scheme);
    const nowS = Math.floor(clock.now() / 1000);
    const tags = [['p', connection.walletPubkey], ['expiration', String(nowS + Math.ceil(timeoutMs / 1000) + 5)]];
    if (scheme === 'nip44') tags.push(['encryption', 'nip44_v2']);
    const event = signNostrEvent({ kind: NWC_REQUEST, created_at: nowS, tags, content: encrypt(JSON.stringify({ method, params }), scheme) }, connection.secret, connection.clientPubkey);
    const answer = answerTo(waiting, event.id, method, timeoutMs);
    // A relay that refuses or never acknowledges does not stop the request: the answer may still come through another.
    pool.publish(connection.relays, event, timeoutMs).catch(() => undefined);
    const response = await answer;
    let text: string;
    try {
      text = decrypt(response, scheme);
    } catch {
      throw new NwcWalletError('UNREADABLE', `the wallet's answer to ${method} does not decrypt with this connection's key`);
    }
    return resultOf<T>(text, method);
  }

  return {
    connection,

    /** Asks the wallet what this connection may do; the methods are the connection's own (get_info), else the info event's. */
    async walletInfo(timeoutMs = requestTimeoutMs): Promise<NwcWalletInfo> {
      const offered = await negotiateEncryption(pool, connection, timeoutMs);
      encryption = offered.scheme;
      const info = await request<Record<string, unknown>>('get_info', {}, timeoutMs);
      const methods = strings(info.methods);
      return {
        methods: methods.length ? methods : offered.advertised,
        notifications: strings(info.notifications).length ? strings(info.notifications) : offered.notifications,
        encryption: offered.scheme,
        network: typeof info.network === 'string' ? info.network : null,
        alias: typeof info.alias === 'string' ? info.alias : null,
        nodePubkey: typeof info.pubkey === 'string' ? info.pubkey : null,
      };
    },

    makeInvoice(params: { amountMsat: number; description: string | null; expirySeconds: number }, timeoutMs?: number): Promise<NwcTransaction> {
      const body: Record<string, unknown> = { amount: params.amountMsat, expiry: params.expirySeconds };
      if (params.description) body.description = params.description;
      return request<NwcTransaction>('make_invoice', body, timeoutMs);
    },

    /** The wallet's record of an invoice by its payment hash; null when it knows none. */
    async lookupInvoice(paymentHash: string, timeoutMs?: number): Promise<NwcTransaction | null> {
      try {
        return await request<NwcTransaction>('lookup_invoice', { payment_hash: paymentHash }, timeoutMs);
      } catch (error) {
        if (error instanceof NwcWalletError && error.code === 'NOT_FOUND') return null;
        throw error;
      }
    },

    onNotification(listener: (notification: NwcNotification) => void): () => void {
      notified.add(listener);
      return () => notified.delete(listener);
    },

    close() {
      subscription.close();
      notified.clear();
    },
  };
}

export type NwcClient = ReturnType<typeof createNwcClient>;

/** The encryption the wallet's info event offers: NIP-44 when it lists nip44_v2, else NIP-04 (older wallets list none). */
async function negotiateEncryption(pool: RelayPool, connection: NwcConnection, timeoutMs: number): Promise<{ scheme: NwcEncryption; advertised: string[]; notifications: string[] }> {
  const events = await pool.query(connection.relays, { kinds: [NWC_INFO], authors: [connection.walletPubkey], limit: 1 }, timeoutMs);
  const info = events.filter((e) => e.pubkey === connection.walletPubkey).sort((a, b) => b.created_at - a.created_at)[0];
  if (!info) throw new NwcWalletError('NO_INFO', 'the wallet published no NIP-47 info event on its relays');
  const tag = (name: string) => (info.tags.find((t) => t[0] === name)?.[1] ?? '').split(/\s+/).filter(Boolean);
  const scheme: NwcEncryption = tag('encryption').includes('nip44_v2') ? 'nip44' : 'nip04';
  return { scheme, advertised: info.content.split(/\s+/).filter(Boolean), notifications: tag('notifications') };
}

/** The result of a decrypted NIP-47 response, or its error (NwcWalletError). */
function resultOf<T>(text: string, method: string): T {
  let body: { result_type?: unknown; error?: { code?: unknown; message?: unknown } | null; result?: unknown };
  try {
    body = JSON.parse(text);
  } catch {
    throw new NwcWalletError('UNREADABLE', `the wallet's answer to ${method} is not JSON`);
  }
  if (body.error) throw new NwcWalletError(String(body.error.code ?? 'OTHER'), String(body.error.message ?? 'no message'));
  if (body.result_type !== method || typeof body.result !== 'object' || body.result === null) {
    throw new NwcWalletError('UNREADABLE', `the wallet answered ${method} with no ${method} result`);
  }
  return body.result as T;
}

/** The connection's encryption both ways, NIP-44 v2 (its conversation key worked out once) or NIP-04. */
function connectionCipher(connection: NwcConnection) {
  let conversationKey: Uint8Array | null = null;
  const nip44Key = () => (conversationKey ??= nip44.v2.utils.getConversationKey(connection.secret, connection.walletPubkey));
  return {
    decrypt: (event: VerifiedEvent, scheme: NwcEncryption) =>
      scheme === 'nip44' ? nip44.v2.decrypt(event.content, nip44Key()) : nip04.decrypt(connection.secret, connection.walletPubkey, event.content),
    encrypt: (text: string, scheme: NwcEncryption) =>
      scheme === 'nip44' ? nip44.v2.encrypt(text, nip44Key()) : nip04.encrypt(connection.secret, connection.walletPubkey, text),
  };
}

/** A notification's content, or null when it does not decrypt or is not a NIP-47 notification. */
function notificationOf(plaintext: () => string): NwcNotification | null {
  let parsed: NwcNotification;
  try {
    parsed = JSON.parse(plaintext());
  } catch {
    return null;
  }
  if (typeof parsed?.notification_type !== 'string' || typeof parsed.notification !== 'object' || parsed.notification === null) return null;
  return parsed;
}

/** The wallet's response to request `id`, or a TIMEOUT error once `timeoutMs` passes without one. */
function answerTo(waiting: Map<string, (event: VerifiedEvent) => void>, id: string, method: string, timeoutMs: number): Promise<VerifiedEvent> {
  return new Promise<VerifiedEvent>((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting.delete(id);
      reject(new NwcWalletError('TIMEOUT', `the wallet did not answer ${method} within ${timeoutMs} ms`));
    }, timeoutMs);
    waiting.set(id, (response) => {
      clearTimeout(timer);
      waiting.delete(id);
      resolve(response);
    });
  });
}
