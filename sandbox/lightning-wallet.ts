import { randomBytes } from 'node:crypto';
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import { generateSecretKey, getPublicKey, type Event } from 'nostr-tools/pure';
import { signNostrEvent, verifyNostrEvent } from '../core/nostr/event-signature.ts';
import {
  createInvoiceBook,
  DEFAULT_EXPIRY_SECONDS,
  mintInvoice,
  newNodeKey,
  sha256Hex,
  type InvoiceBook,
  type LightningNetwork,
  type NodeKey,
  type SimulatedInvoice,
} from './lightning-invoice-book.ts';
import { openRelayLink, type RelayLink } from './nostr-relay-link.ts';

export interface LightningWalletOptions {
  relayUrls: string[];
  network: LightningNetwork;
  /** 'both' (the default) advertises "nip44_v2 nip04"; 'nip04' advertises no encryption tag, as legacy wallets do. */
  encryption?: 'nip44' | 'nip04' | 'both';
  /** Methods this wallet allows; default get_info, make_invoice, lookup_invoice. */
  methods?: string[];
  /** payment_received notifications; default on. */
  notifications?: boolean;
  /** Epoch milliseconds. */
  clock?: { now(): number };
}

/** Ways a wallet service can be wrong, so a client's checks can be tested. */
export interface WalletMisbehaviour {
  /** Answers nothing. */
  silent: boolean;
  /** make_invoice returns an invoice for amount + offset (while its `amount` field says the asked amount). */
  amountOffsetMsat: number;
  /** Signs invoices with a node key other than get_info's. */
  otherNode: boolean;
  /** make_invoice's payment_hash field differs from the BOLT11 invoice's. */
  wrongPaymentHash: boolean;
  /** Notifications and lookups report a preimage that does not hash to the payment hash. */
  wrongPreimage: boolean;
  /** Notification events carry a broken signature. */
  unsignedNotifications: boolean;
  /** Answers this late. */
  delayMs: number;
}

export interface LightningWalletSimulator {
  /** The wallet service's Nostr pubkey (x-only hex). */
  readonly walletPubkey: string;
  /** 33-byte compressed hex of the key that signs its BOLT11 invoices. */
  readonly nodePubkey: string;
  /** A new connection each call, with its own random client secret. */
  connectionUri(): string;
  /**
   * Pays an invoice it issued, as a payer would: marks it settled (amountMsat defaults to the
   * invoice's; a lower one models wallets that accept any amount) and sends payment_received to
   * the connection that made it. Throws for an unknown, expired or already settled invoice.
   */
  settle(
    invoiceOrPaymentHash: string,
    options?: { amountMsat?: number; preimage?: string },
  ): Promise<{ paymentHash: string; preimage: string; amountMsat: number }>;
  invoices(): SimulatedInvoice[];
  /** Requests received and decrypted, of one method or all. */
  requestCount(method?: string): number;
  misbehave(misbehaviour: Partial<WalletMisbehaviour>): void;
  /** Changes what every connection may do, as a wallet's owner does in its settings, and announces it. */
  allow(methods: string[]): void;
  close(): Promise<void>;
}

type Scheme = 'nip44' | 'nip04';
interface WalletError {
  code: string;
  message: string;
}
type Answer = { result: Record<string, unknown> } | { error: WalletError };

const ALIAS = 'sandbox wallet (simulated, not a real Lightning node)';
// A simulated node has no chain: get_info reports height 0 and each network's genesis block.
const GENESIS_BLOCK: Record<LightningNetwork, string> = {
  mainnet: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
  testnet: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
  signet: '00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6',
  regtest: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
};
const KIND_INFO = 13194;
const KIND_REQUEST = 23194;
const KIND_RESPONSE = 23195;
const KIND_NOTIFICATION_NIP04 = 23196;
const KIND_NOTIFICATION_NIP44 = 23197;
const IMPLEMENTED_METHODS = ['get_info', 'make_invoice', 'lookup_invoice'];
const START_TIMEOUT_MS = 10_000;
// Requests arrive once per relay: remember this many ids to answer each once.
const SEEN_REQUESTS = 10_000;
const MAX_CONVERSATION_KEYS = 1_000;
// BOLT #11 descriptions longer than this need an `h` field; a real node refuses them in `d`.
const MAX_DESCRIPTION_BYTES = 639;

interface WalletContext {
  network: LightningNetwork;
  methods: string[];
  notifications: boolean;
  nowSeconds(): number;
  book: InvoiceBook;
  node: NodeKey;
  otherNode: NodeKey;
  misbehaviour: WalletMisbehaviour;
}

/**
 * The sandbox's Lightning wallet: a simulated NIP-47 (Nostr Wallet Connect) wallet service, not a
 * real Lightning node. Over one or more relays it publishes its info event and answers get_info,
 * make_invoice and lookup_invoice in NIP-44 v2 or NIP-04, issuing real BOLT #11 invoices signed
 * with its own node key; `settle` stands in for a payer paying one.
 */
export async function startLightningWallet(options: LightningWalletOptions): Promise<LightningWalletSimulator> {
  const now = () => (options.clock ?? Date).now();
  const encryption = options.encryption ?? 'both';
  const schemes: Scheme[] = encryption === 'both' ? ['nip44', 'nip04'] : [encryption];
  const context: WalletContext = {
    network: options.network,
    methods: options.methods ?? IMPLEMENTED_METHODS,
    notifications: options.notifications ?? true,
    nowSeconds: () => Math.floor(now() / 1000),
    book: createInvoiceBook(now),
    node: newNodeKey(),
    otherNode: newNodeKey(),
    misbehaviour: { silent: false, amountOffsetMsat: 0, otherNode: false, wrongPaymentHash: false, wrongPreimage: false, unsignedNotifications: false, delayMs: 0 },
  };
  const { misbehaviour, book } = context;
  const walletSecret = generateSecretKey();
  const walletPubkey = getPublicKey(walletSecret);
  const clients = new Set<string>();
  const seen = new Set<string>();
  const counts = new Map<string, number>();
  const pendingAnswers = new Set<NodeJS.Timeout>();

  const sign = (kind: number, tags: string[][], content: string) => signNostrEvent({ kind, tags, content, created_at: context.nowSeconds() }, walletSecret, walletPubkey);
  const cipher = createCipher(walletSecret);
  const publish = (event: Event) => {
    for (const link of links) link.publish(event);
  };

  function respond(request: Event, scheme: Scheme, method: string, outcome: Answer): void {
    const body = { result_type: method, error: 'error' in outcome ? outcome.error : null, result: 'result' in outcome ? outcome.result : null };
    const event = sign(KIND_RESPONSE, [['p', request.pubkey], ['e', request.id]], cipher.encrypt(scheme, request.pubkey, JSON.stringify(body)));
    if (misbehaviour.delayMs <= 0) return publish(event);
    const timer = setTimeout(() => (pendingAnswers.delete(timer), publish(event)), misbehaviour.delayMs);
    pendingAnswers.add(timer);
  }

  function onRequest(event: unknown): void {
    const request = readRequest(event, cipher, walletPubkey, seen, context.nowSeconds());
    if (!request) return;
    counts.set(request.method, (counts.get(request.method) ?? 0) + 1);
    if (misbehaviour.silent) return;
    const { event: requestEvent, scheme, method } = request;
    if (!schemes.includes(scheme)) {
      return respond(requestEvent, schemes[0], method, failure('UNSUPPORTED_ENCRYPTION', `this wallet does not speak ${scheme}`));
    }
    if (!clients.has(requestEvent.pubkey)) return respond(requestEvent, scheme, method, failure('UNAUTHORIZED', 'no wallet is connected to this key'));
    respond(requestEvent, scheme, method, answer(context, method, request.params, requestEvent.pubkey));
  }

  function notify(invoice: SimulatedInvoice): void {
    if (!context.notifications || misbehaviour.silent) return;
    const content = JSON.stringify({ notification_type: 'payment_received', notification: transactionOf(context, invoice) });
    for (const scheme of schemes) {
      const kind = scheme === 'nip44' ? KIND_NOTIFICATION_NIP44 : KIND_NOTIFICATION_NIP04;
      const event = sign(kind, [['p', invoice.clientPubkey]], cipher.encrypt(scheme, invoice.clientPubkey, content));
      publish(misbehaviour.unsignedNotifications ? { ...event, sig: brokenSignature(event.sig) } : event);
    }
  }

  const announce = () => [sign(KIND_INFO, infoTags(encryption, schemes, context.notifications), infoContent(context))];
  const links: RelayLink[] = options.relayUrls.map((url) =>
    openRelayLink(url, { filters: [{ kinds: [KIND_REQUEST], '#p': [walletPubkey] }], onEvent: onRequest, announce }),
  );
  const close = async () => {
    for (const timer of pendingAnswers) clearTimeout(timer);
    for (const link of links) link.close();
  };
  await readyOrClose(links, close);

  return {
    walletPubkey,
    nodePubkey: context.node.publicKey,
    connectionUri() {
      const clientSecret = randomBytes(32).toString('hex');
      // NIP-47: the wallet service keeps only the client's pubkey, never its secret.
      clients.add(getPublicKey(Buffer.from(clientSecret, 'hex')));
      const relays = options.relayUrls.map((url) => `relay=${encodeURIComponent(url)}`).join('&');
      return `nostr+walletconnect://${walletPubkey}?${relays}&secret=${clientSecret}`;
    },
    async settle(invoiceOrPaymentHash, settleOptions = {}) {
      const settled = settleInvoice(context, invoiceOrPaymentHash, settleOptions);
      notify(book.find(settled.paymentHash) as SimulatedInvoice);
      return settled;
    },
    invoices: () => book.all(),
    requestCount: (method) => (method === undefined ? [...counts.values()].reduce((sum, n) => sum + n, 0) : (counts.get(method) ?? 0)),
    allow(methods) {
      context.methods = methods;
      for (const event of announce()) publish(event);
    },
    misbehave(changes) {
      Object.assign(misbehaviour, changes);
    },
    close,
  };
}

interface ReadRequest {
  event: Event;
  scheme: Scheme;
  method: string;
  params: Record<string, unknown>;
}

type Cipher = ReturnType<typeof createCipher>;

/**
 * NIP-44 v2 and NIP-04 with the wallet's key. A NIP-44 conversation key (an ECDH) costs more than
 * the rest of an answer, and is the same for every message with one peer: it is kept per peer, for
 * the most recent MAX_CONVERSATION_KEYS peers (requests from unknown keys cannot grow it further).
 */
function createCipher(walletSecret: Uint8Array) {
  const keys = new Map<string, Uint8Array>();
  const conversationKey = (peer: string): Uint8Array => {
    const known = keys.get(peer);
    if (known) return known;
    const key = nip44.getConversationKey(walletSecret, peer);
    if (keys.size >= MAX_CONVERSATION_KEYS) keys.delete(keys.keys().next().value!);
    keys.set(peer, key);
    return key;
  };
  return {
    encrypt: (scheme: Scheme, peer: string, plaintext: string): string =>
      scheme === 'nip44' ? nip44.encrypt(plaintext, conversationKey(peer)) : nip04.encrypt(walletSecret, peer, plaintext),
    decrypt: (scheme: Scheme, peer: string, payload: string): string =>
      scheme === 'nip44' ? nip44.decrypt(payload, conversationKey(peer)) : nip04.decrypt(walletSecret, peer, payload),
  };
}

/** A request event for this wallet, verified, not seen before, not expired, decrypted; or null. */
function readRequest(event: unknown, cipher: Cipher, walletPubkey: string, seen: Set<string>, nowSeconds: number): ReadRequest | null {
  const request = event as Event;
  if (typeof request !== 'object' || request === null || seen.has(request.id)) return null;
  if (!verifyNostrEvent(request) || request.kind !== KIND_REQUEST) return null;
  if (!request.tags.some((tag) => tag[0] === 'p' && tag[1] === walletPubkey)) return null;
  remember(seen, request.id);
  const expiration = Number(request.tags.find((tag) => tag[0] === 'expiration')?.[1]);
  if (Number.isFinite(expiration) && expiration < nowSeconds) return null; // NIP-47: ignore expired requests
  const scheme: Scheme = request.tags.some((tag) => tag[0] === 'encryption' && tag[1]?.split(' ').includes('nip44_v2')) ? 'nip44' : 'nip04';
  try {
    const plaintext = cipher.decrypt(scheme, request.pubkey, request.content);
    const parsed = JSON.parse(plaintext) as { method?: unknown; params?: unknown };
    const params = typeof parsed.params === 'object' && parsed.params !== null ? (parsed.params as Record<string, unknown>) : {};
    return { event: request, scheme, method: typeof parsed.method === 'string' ? parsed.method : '', params };
  } catch {
    return null; // not readable: a wallet service cannot answer what it cannot read
  }
}

function infoTags(encryption: 'nip44' | 'nip04' | 'both', schemes: Scheme[], notifications: boolean): string[][] {
  const tags: string[][] = [];
  // NIP-47: no encryption tag means NIP-04 only, as legacy wallets publish.
  if (encryption !== 'nip04') tags.push(['encryption', schemes.map((scheme) => (scheme === 'nip44' ? 'nip44_v2' : 'nip04')).join(' ')]);
  if (notifications) tags.push(['notifications', 'payment_received']);
  return tags;
}

function infoContent(context: WalletContext): string {
  return [...context.methods, ...(context.notifications ? ['notifications'] : [])].join(' ');
}

/** What the transaction looks like to a client, with this wallet's lies if it tells any. */
function transactionOf(context: WalletContext, invoice: SimulatedInvoice): Record<string, unknown> {
  const settled = invoice.state === 'settled';
  return {
    type: 'incoming',
    state: invoice.state,
    invoice: invoice.bolt11,
    description: invoice.description,
    payment_hash: invoice.paymentHash,
    amount: settled ? invoice.settledAmountMsat : invoice.amountMsat,
    fees_paid: 0,
    created_at: invoice.createdAt,
    expires_at: invoice.expiresAt,
    ...(settled ? { preimage: context.misbehaviour.wrongPreimage ? randomHex() : invoice.preimage, settled_at: invoice.settledAt } : {}),
  };
}

function answer(context: WalletContext, method: string, params: Record<string, unknown>, clientPubkey: string): Answer {
  if (!IMPLEMENTED_METHODS.includes(method)) return failure('NOT_IMPLEMENTED', `${method} is not implemented by the sandbox wallet`);
  if (!context.methods.includes(method)) return failure('RESTRICTED', `${method} is not allowed for this connection`);
  if (method === 'make_invoice') return makeInvoice(context, params, clientPubkey);
  if (method === 'lookup_invoice') return lookupInvoice(context, params);
  const info = {
    alias: ALIAS,
    color: '#808080',
    pubkey: context.node.publicKey,
    network: context.network,
    block_height: 0,
    block_hash: GENESIS_BLOCK[context.network],
    methods: context.methods,
    notifications: context.notifications ? ['payment_received'] : [],
  };
  return { result: info };
}

function makeInvoice(context: WalletContext, params: Record<string, unknown>, clientPubkey: string): Answer {
  const { amount, description = '', description_hash: descriptionHash, expiry = DEFAULT_EXPIRY_SECONDS } = params;
  if (!Number.isSafeInteger(amount) || (amount as number) <= 0) return failure('OTHER', 'amount must be a positive integer of msat');
  if (typeof description !== 'string' || Buffer.byteLength(description) > MAX_DESCRIPTION_BYTES) {
    return failure('OTHER', `description must be a string of at most ${MAX_DESCRIPTION_BYTES} bytes`);
  }
  if (descriptionHash !== undefined && (typeof descriptionHash !== 'string' || !/^[0-9a-f]{64}$/.test(descriptionHash))) {
    return failure('OTHER', 'description_hash must be 64 hex characters');
  }
  if (!Number.isSafeInteger(expiry) || (expiry as number) <= 0) return failure('OTHER', 'expiry must be a positive integer of seconds');
  const { misbehaviour } = context;
  const asked = amount as number;
  const createdAt = context.nowSeconds();
  const minted = mintInvoice({
    amountMsat: asked + misbehaviour.amountOffsetMsat,
    description,
    descriptionHash,
    expirySeconds: expiry as number,
    nowSeconds: createdAt,
    network: context.network,
    nodePrivateKey: misbehaviour.otherNode ? context.otherNode.privateKey : context.node.privateKey,
  });
  const invoice: SimulatedInvoice = {
    ...minted,
    amountMsat: asked + misbehaviour.amountOffsetMsat,
    state: 'pending',
    description,
    createdAt,
    expiresAt: createdAt + (expiry as number),
    settledAt: null,
    settledAmountMsat: null,
    clientPubkey,
  };
  context.book.add(invoice);
  const reported = { ...transactionOf(context, invoice), amount: asked, ...(descriptionHash ? { description_hash: descriptionHash } : {}) };
  return { result: misbehaviour.wrongPaymentHash ? { ...reported, payment_hash: randomHex() } : reported };
}

function lookupInvoice(context: WalletContext, params: Record<string, unknown>): Answer {
  const key = typeof params.payment_hash === 'string' ? params.payment_hash : typeof params.invoice === 'string' ? params.invoice : null;
  if (key === null) return failure('OTHER', 'lookup_invoice needs payment_hash or invoice');
  const invoice = context.book.find(key);
  return invoice ? { result: transactionOf(context, invoice) } : failure('NOT_FOUND', 'no invoice with that payment hash or text');
}

function settleInvoice(
  context: WalletContext,
  invoiceOrPaymentHash: string,
  options: { amountMsat?: number; preimage?: string },
): { paymentHash: string; preimage: string; amountMsat: number } {
  const invoice = context.book.find(invoiceOrPaymentHash);
  if (!invoice) throw new Error('the sandbox wallet did not issue that invoice');
  if (invoice.state !== 'pending') throw new Error(`the invoice is ${invoice.state}, it cannot be paid`);
  const amountMsat = options.amountMsat ?? invoice.amountMsat;
  if (!Number.isSafeInteger(amountMsat) || amountMsat <= 0) throw new Error('amountMsat must be a positive integer');
  if (options.preimage !== undefined && sha256Hex(options.preimage) !== invoice.paymentHash) {
    throw new Error('that preimage does not hash to the payment hash');
  }
  context.book.settle(invoice.paymentHash, amountMsat, context.nowSeconds());
  return { paymentHash: invoice.paymentHash, preimage: invoice.preimage, amountMsat };
}

function failure(code: string, message: string): Answer {
  return { error: { code, message } };
}

function randomHex(): string {
  return randomBytes(32).toString('hex');
}

/** The same signature with one bit flipped: well-formed, but it verifies for nothing. */
function brokenSignature(sig: string): string {
  return (parseInt(sig[0], 16) ^ 1).toString(16) + sig.slice(1);
}

function remember(seen: Set<string>, id: string): void {
  seen.add(id);
  if (seen.size > SEEN_REQUESTS) seen.delete(seen.values().next().value as string);
}

/** Waits until every relay has the info event and the subscription; gives up and closes after a while. */
async function readyOrClose(links: RelayLink[], close: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the sandbox wallet could not subscribe on every relay')), START_TIMEOUT_MS);
  });
  try {
    await Promise.race([Promise.all(links.map((link) => link.ready)), timeout]);
  } catch (error) {
    await close();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
