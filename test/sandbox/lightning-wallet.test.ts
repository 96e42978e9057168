import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import bolt11 from 'bolt11';
import * as nip04 from 'nostr-tools/nip04';
import * as nip44 from 'nostr-tools/nip44';
import { nip47 } from 'nostr-tools';
import { finalizeEvent, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure';
import { startLightningWallet, type LightningWalletSimulator } from '../../sandbox/lightning-wallet.ts';
import { startNostrRelay, type NostrRelay } from '../../sandbox/nostr-relay.ts';
import { openNostrSocket, type NostrSocket } from '../helpers/nostr-socket.ts';

type Scheme = 'nip44' | 'nip04';
interface Reply {
  result_type: string;
  error: { code: string; message: string } | null;
  result: Record<string, unknown> | null;
}

const sha256 = (hex: string) => createHash('sha256').update(Buffer.from(hex, 'hex')).digest('hex');
const isEose = (id: string) => (message: unknown[]) => message[0] === 'EOSE' && message[1] === id;

/** The least a NIP-47 client does: sign, encrypt, send a request, and read the answer and notifications. */
async function connectClient(uri: string) {
  const connection = nip47.parseConnectionString(uri);
  const secret = new Uint8Array(Buffer.from(connection.secret, 'hex'));
  const pubkey = getPublicKey(secret);
  const socket = await openNostrSocket(connection.relays[0]);
  socket.send(['REQ', 'nwc', { kinds: [23195, 23196, 23197], '#p': [pubkey] }]);
  await socket.next(isEose('nwc'));
  const decrypt = (scheme: Scheme, payload: string) =>
    scheme === 'nip44'
      ? nip44.decrypt(payload, nip44.getConversationKey(secret, connection.pubkey))
      : nip04.decrypt(secret, connection.pubkey, payload);
  const eventOf = (message: unknown[]) => message[2] as Event;

  const send = (method: string, params: object, scheme: Scheme): Event => {
    const plaintext = JSON.stringify({ method, params });
    const content =
      scheme === 'nip44'
        ? nip44.encrypt(plaintext, nip44.getConversationKey(secret, connection.pubkey))
        : nip04.encrypt(secret, connection.pubkey, plaintext);
    const tags = [['p', connection.pubkey], ...(scheme === 'nip44' ? [['encryption', 'nip44_v2']] : [])];
    const request = finalizeEvent({ kind: 23194, tags, content, created_at: Math.floor(Date.now() / 1000) }, secret);
    socket.send(['EVENT', request]);
    return request;
  };
  const answerTo = async (request: Event, scheme: Scheme, timeoutMs?: number) => {
    const isAnswer = (m: unknown[]) => m[0] === 'EVENT' && eventOf(m).kind === 23195 && eventOf(m).tags.some((t) => t[0] === 'e' && t[1] === request.id);
    const event = eventOf(await socket.next(isAnswer, timeoutMs));
    assert.ok(verifyEvent(event), 'the wallet signs its answers');
    assert.equal(event.pubkey, connection.pubkey);
    assert.deepEqual(event.tags.find((t) => t[0] === 'p'), ['p', pubkey]);
    return JSON.parse(decrypt(scheme, event.content)) as Reply;
  };
  return {
    pubkey,
    walletPubkey: connection.pubkey,
    socket,
    send,
    answerTo,
    request: (method: string, params: object = {}, scheme: Scheme = 'nip44') => answerTo(send(method, params, scheme), scheme),
    /** The next notification event of a kind, decrypted, with the event to check its signature. */
    async notification(kind: 23196 | 23197) {
      const event = eventOf(await socket.next((m) => m[0] === 'EVENT' && eventOf(m).kind === kind));
      return { event, body: JSON.parse(decrypt(kind === 23197 ? 'nip44' : 'nip04', event.content)) as { notification_type: string; notification: Record<string, unknown> } };
    },
  };
}
type Client = Awaited<ReturnType<typeof connectClient>>;

let relay: NostrRelay;
let wallet: LightningWalletSimulator;
let client: Client;
let clock = { now: () => Date.parse('2026-03-01T12:00:00Z') };
before(async () => {
  relay = await startNostrRelay();
  wallet = await startLightningWallet({ relayUrls: [relay.url], network: 'regtest', clock: { now: () => clock.now() } });
  client = await connectClient(wallet.connectionUri());
});
after(async () => {
  await wallet.close();
  await relay.close();
});

test('the wallet publishes its info event: methods, nip44_v2 nip04 encryption, payment_received notifications', async () => {
  const socket = await openNostrSocket(relay.url);
  socket.send(['REQ', 'info', { kinds: [13194], authors: [wallet.walletPubkey] }]);
  await socket.next(isEose('info'));
  const info = socket.received.find((m) => Array.isArray(m) && m[0] === 'EVENT') as unknown[];
  const event = info[2] as Event;
  assert.ok(verifyEvent(event));
  assert.equal(event.content, 'get_info make_invoice lookup_invoice notifications');
  assert.deepEqual(event.tags.find((t) => t[0] === 'encryption'), ['encryption', 'nip44_v2 nip04']);
  assert.deepEqual(event.tags.find((t) => t[0] === 'notifications'), ['notifications', 'payment_received']);
  await socket.close();
});

test('get_info answers over NIP-44 and NIP-04 with the node pubkey, network, methods and the simulator alias', async () => {
  for (const scheme of ['nip44', 'nip04'] as const) {
    const reply = await client.request('get_info', {}, scheme);
    assert.equal(reply.result_type, 'get_info');
    assert.equal(reply.error, null);
    assert.equal(reply.result?.pubkey, wallet.nodePubkey);
    assert.equal(reply.result?.network, 'regtest');
    assert.deepEqual(reply.result?.methods, ['get_info', 'make_invoice', 'lookup_invoice']);
    assert.deepEqual(reply.result?.notifications, ['payment_received']);
    assert.equal(reply.result?.alias, 'sandbox wallet (simulated, not a real Lightning node)');
  }
  assert.equal(wallet.requestCount('get_info'), 2);
});

test('make_invoice issues a real BOLT11 invoice: asked amount, expiry, description, signed by the node key', async () => {
  const reply = await client.request('make_invoice', { amount: 123_450, description: 'order 42', expiry: 600 });
  assert.equal(reply.error, null);
  const result = reply.result as Record<string, unknown>;
  const decoded = bolt11.decode(result.invoice as string);
  assert.equal(decoded.network?.bech32, 'bcrt');
  assert.equal(decoded.millisatoshis, '123450');
  assert.equal(decoded.payeeNodeKey, wallet.nodePubkey, 'the signature recovers to the node key');
  assert.equal(decoded.tagsObject.description, 'order 42');
  assert.equal(decoded.tagsObject.expire_time, 600);
  assert.equal(decoded.timestamp, Math.floor(clock.now() / 1000));
  assert.equal(decoded.tagsObject.payment_hash, result.payment_hash);
  assert.equal(result.amount, 123_450);
  assert.equal(result.state, 'pending');
  assert.equal(result.expires_at, (decoded.timestamp as number) + 600);
  assert.equal(result.preimage, undefined, 'no preimage before payment');
});

test('settle sends payment_received (NIP-44 and NIP-04) whose preimage hashes to the payment hash; lookup_invoice says settled', async () => {
  const made = (await client.request('make_invoice', { amount: 50_000, description: 'coffee', expiry: 900 })).result as Record<string, unknown>;
  client.socket.skipReceived();
  const settled = await wallet.settle(made.invoice as string);
  assert.equal(settled.paymentHash, made.payment_hash);
  assert.equal(sha256(settled.preimage), settled.paymentHash);
  assert.equal(settled.amountMsat, 50_000);

  for (const kind of [23197, 23196] as const) {
    const { event, body } = await client.notification(kind);
    assert.ok(verifyEvent(event));
    assert.equal(body.notification_type, 'payment_received');
    assert.equal(body.notification.payment_hash, made.payment_hash);
    assert.equal(body.notification.invoice, made.invoice);
    assert.equal(body.notification.amount, 50_000);
    assert.equal(sha256(body.notification.preimage as string), made.payment_hash);
  }
  const byHash = await client.request('lookup_invoice', { payment_hash: made.payment_hash });
  assert.equal(byHash.result?.state, 'settled');
  assert.equal(byHash.result?.preimage, settled.preimage);
  const byInvoice = await client.request('lookup_invoice', { invoice: made.invoice }, 'nip04');
  assert.equal(byInvoice.result?.state, 'settled');
  await assert.rejects(wallet.settle(made.payment_hash as string), /settled/);
});

test('a lower settled amount is reported as paid; unknown and expired invoices cannot be settled', async () => {
  const made = (await client.request('make_invoice', { amount: 10_000, expiry: 60 })).result as Record<string, unknown>;
  const settled = await wallet.settle(made.payment_hash as string, { amountMsat: 9_000 });
  assert.equal(settled.amountMsat, 9_000);
  assert.equal((await client.request('lookup_invoice', { payment_hash: made.payment_hash })).result?.amount, 9_000);

  await assert.rejects(wallet.settle('00'.repeat(32)), /did not issue/);
  const expiring = (await client.request('make_invoice', { amount: 10_000, expiry: 60 })).result as Record<string, unknown>;
  const start = clock.now();
  clock = { now: () => start + 61_000 };
  await assert.rejects(wallet.settle(expiring.payment_hash as string), /expired/);
  assert.equal((await client.request('lookup_invoice', { payment_hash: expiring.payment_hash })).result?.state, 'expired');
  assert.equal(wallet.invoices().find((invoice) => invoice.paymentHash === expiring.payment_hash)?.state, 'expired');
});

test('lookup_invoice of an unknown hash is NOT_FOUND; a method not offered is NOT_IMPLEMENTED', async () => {
  assert.equal((await client.request('lookup_invoice', { payment_hash: 'ab'.repeat(32) })).error?.code, 'NOT_FOUND');
  const pay = await client.request('pay_invoice', { invoice: 'lnbcrt1' });
  assert.equal(pay.result_type, 'pay_invoice');
  assert.equal(pay.error?.code, 'NOT_IMPLEMENTED');
  assert.equal(pay.result, null);
});

test('each connection URI is its own client key; a key the wallet never issued is UNAUTHORIZED', async () => {
  const second = await connectClient(wallet.connectionUri());
  assert.notEqual(second.pubkey, client.pubkey);
  const made = (await second.request('make_invoice', { amount: 2_000 })).result as Record<string, unknown>;
  client.socket.skipReceived();
  await wallet.settle(made.payment_hash as string);
  // The notification goes to the connection that made the invoice, not to the others.
  assert.equal((await second.notification(23197)).body.notification.payment_hash, made.payment_hash);
  const ping = await client.request('get_info');
  assert.equal(ping.error, null);
  assert.ok(!client.socket.receivedSinceSkip().some((m) => Array.isArray(m) && m[0] === 'EVENT' && [23196, 23197].includes((m[2] as Event).kind)));

  const stranger = await connectClient(`nostr+walletconnect://${wallet.walletPubkey}?relay=${encodeURIComponent(relay.url)}&secret=${'42'.repeat(32)}`);
  assert.equal((await stranger.request('get_info')).error?.code, 'UNAUTHORIZED');
  await Promise.all([second.socket.close(), stranger.socket.close()]);
});

test('the wallet reconnects after the relay drops every connection and answers again', async () => {
  relay.dropConnections();
  const fresh = await connectClient(wallet.connectionUri());
  // The request may reach the relay before the wallet is back: ephemeral, so the client asks again.
  for (let attempt = 0; ; attempt++) {
    const request = fresh.send('get_info', {}, 'nip44');
    try {
      assert.equal((await fresh.answerTo(request, 'nip44', 1_000)).result?.pubkey, wallet.nodePubkey);
      break;
    } catch (error) {
      if (attempt >= 20) throw error;
    }
  }
  client = await connectClient(wallet.connectionUri());
  await fresh.socket.close();
});

test('misbehaviour: amount offset, other node, wrong payment hash are visible in the invoice', async () => {
  wallet.misbehave({ amountOffsetMsat: 1_000, otherNode: true, wrongPaymentHash: true });
  const made = (await client.request('make_invoice', { amount: 5_000 })).result as Record<string, unknown>;
  wallet.misbehave({ amountOffsetMsat: 0, otherNode: false, wrongPaymentHash: false });
  const decoded = bolt11.decode(made.invoice as string);
  assert.equal(made.amount, 5_000, 'the field claims the asked amount');
  assert.equal(decoded.millisatoshis, '6000', 'the invoice asks for more');
  assert.notEqual(decoded.payeeNodeKey, wallet.nodePubkey);
  assert.notEqual(made.payment_hash, decoded.tagsObject.payment_hash);
});

test('misbehaviour: wrong preimage in the notification and the lookup', async () => {
  wallet.misbehave({ wrongPreimage: true });
  const made = (await client.request('make_invoice', { amount: 7_000 })).result as Record<string, unknown>;
  client.socket.skipReceived();
  const settled = await wallet.settle(made.payment_hash as string);
  const { body } = await client.notification(23197);
  assert.notEqual(sha256(body.notification.preimage as string), made.payment_hash);
  const looked = await client.request('lookup_invoice', { payment_hash: made.payment_hash });
  assert.notEqual(sha256(looked.result?.preimage as string), made.payment_hash);
  assert.equal(sha256(settled.preimage), made.payment_hash, 'settle itself reports the truth');
  wallet.misbehave({ wrongPreimage: false });
});

test('misbehaviour: silent answers nothing; delayMs answers late', async () => {
  wallet.misbehave({ silent: true });
  const before = wallet.requestCount('get_info');
  const ignored = client.send('get_info', {}, 'nip44');
  // Once the wallet has read it, turn silence off: a later request is answered, the ignored one never.
  while (wallet.requestCount('get_info') === before) await new Promise((resolve) => setImmediate(resolve));
  wallet.misbehave({ silent: false, delayMs: 300 });
  const started = Date.now();
  assert.equal((await client.request('get_info')).error, null);
  assert.ok(Date.now() - started >= 300, 'the answer came no sooner than the delay');
  wallet.misbehave({ delayMs: 0 });
  // The relay keeps the wallet's order: had the ignored request been answered, that answer came first.
  const answeredIgnored = client.socket.received.some((m) => Array.isArray(m) && (m[2] as Event | undefined)?.tags?.some((t) => t[0] === 'e' && t[1] === ignored.id));
  assert.equal(answeredIgnored, false);
});

test('misbehaviour: notifications with a broken signature (seen through a relay that does not check)', async () => {
  const laxRelay = await startNostrRelay({ verifySignatures: false });
  const laxWallet = await startLightningWallet({ relayUrls: [laxRelay.url], network: 'signet', encryption: 'nip44' });
  const laxClient = await connectClient(laxWallet.connectionUri());
  laxWallet.misbehave({ unsignedNotifications: true });
  const made = (await laxClient.request('make_invoice', { amount: 1_000 })).result as Record<string, unknown>;
  assert.match(made.invoice as string, /^lntb10n1/);
  await laxWallet.settle(made.payment_hash as string);
  const { event } = await laxClient.notification(23197);
  assert.equal(verifyEvent({ ...event }), false);
  await laxClient.socket.close();
  await laxWallet.close();
  await laxRelay.close();
});

test('a NIP-04-only wallet advertises no encryption tag, refuses NIP-44 requests, and notifies on kind 23196 only', async () => {
  const legacy = await startLightningWallet({ relayUrls: [relay.url], network: 'mainnet', encryption: 'nip04', notifications: true });
  const legacyClient = await connectClient(legacy.connectionUri());
  const socket = await openNostrSocket(relay.url);
  socket.send(['REQ', 'info', { kinds: [13194], authors: [legacy.walletPubkey] }]);
  await socket.next(isEose('info'));
  const info = (socket.received.find((m) => Array.isArray(m) && m[0] === 'EVENT') as unknown[])[2] as Event;
  assert.equal(info.tags.find((t) => t[0] === 'encryption'), undefined);

  const refused = legacyClient.send('get_info', {}, 'nip44');
  assert.equal((await legacyClient.answerTo(refused, 'nip04')).error?.code, 'UNSUPPORTED_ENCRYPTION');
  const made = (await legacyClient.request('make_invoice', { amount: 100_000_000 }, 'nip04')).result as Record<string, unknown>;
  assert.match(made.invoice as string, /^lnbc1m1/);
  await legacy.settle(made.payment_hash as string);
  const { body } = await legacyClient.notification(23196);
  assert.equal(body.notification.payment_hash, made.payment_hash);
  assert.ok(!legacyClient.socket.receivedSinceSkip().some((m) => Array.isArray(m) && m[0] === 'EVENT' && (m[2] as Event).kind === 23197));
  await Promise.all([socket.close(), legacyClient.socket.close()]);
  await legacy.close();
});

test('a method left out of `methods` is RESTRICTED; notifications off sends none and says so', async () => {
  const restricted = await startLightningWallet({ relayUrls: [relay.url], network: 'testnet', methods: ['get_info', 'make_invoice'], notifications: false });
  const restrictedClient = await connectClient(restricted.connectionUri());
  const info = await restrictedClient.request('get_info');
  assert.deepEqual(info.result?.notifications, []);
  assert.equal((await restrictedClient.request('lookup_invoice', { payment_hash: '00'.repeat(32) })).error?.code, 'RESTRICTED');
  const made = (await restrictedClient.request('make_invoice', { amount: 3_000 })).result as Record<string, unknown>;
  await restricted.settle(made.payment_hash as string);
  assert.equal((await restrictedClient.request('get_info')).error, null);
  assert.ok(!restrictedClient.socket.received.some((m) => Array.isArray(m) && m[0] === 'EVENT' && [23196, 23197].includes((m[2] as Event).kind)));
  await restrictedClient.socket.close();
  await restricted.close();
});
