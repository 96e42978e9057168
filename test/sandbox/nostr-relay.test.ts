import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { finalizeEvent, generateSecretKey, getPublicKey, type Event } from 'nostr-tools/pure';
import { startNostrRelay, type NostrRelay } from '../../sandbox/nostr-relay.ts';
import { openNostrSocket, type NostrSocket } from '../helpers/nostr-socket.ts';

let relay: NostrRelay;
before(async () => {
  relay = await startNostrRelay({ maxSubscriptionsPerConnection: 3, maxMessageBytes: 4096 });
});
after(() => relay.close());

const author = generateSecretKey();
let clock = 1_700_000_000;
const signed = (kind: number, content = '', tags: string[][] = [], secret = author): Event =>
  finalizeEvent({ kind, content, tags, created_at: clock++ }, secret);

const isOk = (id: string) => (message: unknown[]) => message[0] === 'OK' && message[1] === id;
const isEose = (subscriptionId: string) => (message: unknown[]) => message[0] === 'EOSE' && message[1] === subscriptionId;
const isNotice = (message: unknown[]) => message[0] === 'NOTICE';

async function publish(socket: NostrSocket, event: Event): Promise<unknown[]> {
  socket.send(['EVENT', event]);
  return socket.next(isOk(event.id));
}

/** The events a fresh REQ returns before EOSE. */
async function stored(socket: NostrSocket, ...filters: object[]): Promise<Event[]> {
  const subscriptionId = `q${Math.random().toString(36).slice(2)}`;
  socket.send(['REQ', subscriptionId, ...filters]);
  await socket.next(isEose(subscriptionId));
  socket.send(['CLOSE', subscriptionId]);
  return socket.received.filter((m): m is unknown[] => Array.isArray(m) && m[0] === 'EVENT' && m[1] === subscriptionId).map((m) => m[2] as Event);
}

test('a signed event is accepted and stored; a tampered one is refused with OK false invalid', async () => {
  const socket = await openNostrSocket(relay.url);
  const note = signed(1, 'hello');
  assert.deepEqual(await publish(socket, note), ['OK', note.id, true, '']);
  assert.deepEqual((await stored(socket, { ids: [note.id] })).map((event) => event.content), ['hello']);

  const tampered = { ...signed(1, 'original'), content: 'changed' };
  const refused = await publish(socket, tampered);
  assert.equal(refused[2], false);
  assert.match(String(refused[3]), /^invalid: /);
  const badSignature = { ...signed(1, 'x'), sig: '00'.repeat(64) };
  assert.equal((await publish(socket, badSignature))[2], false);
  assert.deepEqual(await stored(socket, { ids: [tampered.id, badSignature.id] }), []);
  await socket.close();
});

test('REQ returns stored matches newest first, cut at limit, then EOSE, then live matches', async () => {
  const socket = await openNostrSocket(relay.url);
  const tag = `topic-${Math.random()}`;
  const events = [signed(1, 'a', [['t', tag]]), signed(1, 'b', [['t', tag]]), signed(1, 'c', [['t', tag]])];
  for (const event of events) await publish(socket, event);
  await publish(socket, signed(1, 'untagged'));

  socket.send(['REQ', 'feed', { '#t': [tag], kinds: [1], authors: [getPublicKey(author)], limit: 2 }]);
  await socket.next(isEose('feed'));
  const before = socket.received.filter((m) => Array.isArray(m) && m[0] === 'EVENT' && m[1] === 'feed');
  assert.deepEqual(before.map((m) => ((m as unknown[])[2] as Event).content), ['c', 'b']);

  const other = await openNostrSocket(relay.url);
  const live = signed(1, 'live', [['t', tag]]);
  await publish(other, live);
  const forwarded = await socket.next((m) => m[0] === 'EVENT' && m[1] === 'feed' && (m[2] as Event).id === live.id);
  assert.equal((forwarded[2] as Event).content, 'live');

  assert.deepEqual((await stored(socket, { '#t': [tag], since: live.created_at })).map((e) => e.content), ['live']);
  assert.deepEqual((await stored(socket, { '#t': [tag], until: events[0].created_at })).map((e) => e.content), ['a']);
  await Promise.all([socket.close(), other.close()]);
});

test('ephemeral events reach live subscriptions but are never stored', async () => {
  const listener = await openNostrSocket(relay.url);
  const sender = await openNostrSocket(relay.url);
  listener.send(['REQ', 'eph', { kinds: [23194] }]);
  await listener.next(isEose('eph'));
  const ephemeral = signed(23194, 'request');
  assert.deepEqual(await publish(sender, ephemeral), ['OK', ephemeral.id, true, '']);
  await listener.next((m) => m[0] === 'EVENT' && m[1] === 'eph' && (m[2] as Event).id === ephemeral.id);
  assert.deepEqual(await stored(sender, { ids: [ephemeral.id] }), []);
  await Promise.all([listener.close(), sender.close()]);
});

test('a replaceable event keeps only the latest per pubkey and kind; an older one does not replace it', async () => {
  const socket = await openNostrSocket(relay.url);
  const owner = generateSecretKey();
  const first = signed(13194, 'get_info', [], owner);
  const second = signed(13194, 'get_info make_invoice', [], owner);
  await publish(socket, first);
  await publish(socket, second);
  const latest = await stored(socket, { kinds: [13194], authors: [getPublicKey(owner)] });
  assert.deepEqual(latest.map((event) => event.id), [second.id]);

  const older = finalizeEvent({ kind: 13194, content: 'stale', tags: [], created_at: first.created_at - 10 }, owner);
  await publish(socket, older);
  const still = await stored(socket, { kinds: [13194], authors: [getPublicKey(owner)] });
  assert.deepEqual(still.map((event) => event.id), [second.id]);

  const profile = signed(0, '{"name":"x"}', [], owner);
  await publish(socket, profile);
  await publish(socket, signed(0, '{"name":"y"}', [], owner));
  assert.deepEqual((await stored(socket, { kinds: [0], authors: [getPublicKey(owner)] })).map((e) => e.content), ['{"name":"y"}']);
  await socket.close();
});

test('a REQ with an existing id replaces it; past the cap a new one is CLOSED; CLOSE frees a place', async () => {
  const socket = await openNostrSocket(relay.url);
  for (const id of ['s1', 's2', 's3']) {
    socket.send(['REQ', id, { kinds: [1], limit: 0 }]);
    await socket.next(isEose(id));
  }
  socket.send(['REQ', 's1', { kinds: [7], limit: 0 }]);
  await socket.next(isEose('s1'));
  assert.equal(relay.subscriptionCount(), 3);
  socket.send(['REQ', 's4', { kinds: [1] }]);
  assert.deepEqual(await socket.next((m) => m[0] === 'CLOSED'), ['CLOSED', 's4', 'error: too many subscriptions']);

  // s1 now wants kind 7 only: a kind 1 event reaches s2 and s3, not s1.
  const note = signed(1, 'which subscriptions');
  await publish(socket, note);
  await socket.next((m) => m[0] === 'EVENT' && m[1] === 's3' && (m[2] as Event).id === note.id);
  const deliveredTo = socket.received.filter((m) => Array.isArray(m) && m[0] === 'EVENT' && (m[2] as Event).id === note.id).map((m) => (m as unknown[])[1]);
  assert.deepEqual(deliveredTo.sort(), ['s2', 's3']);

  socket.send(['CLOSE', 's2']);
  socket.send(['REQ', 's4', { kinds: [1], limit: 0 }]);
  await socket.next(isEose('s4'));
  await socket.close();
});

test('garbage, unknown verbs, bad filters and oversized messages get a NOTICE or CLOSED, and the connection keeps working', async () => {
  const socket = await openNostrSocket(relay.url);
  socket.send('this is not json');
  assert.match(String((await socket.next(isNotice))[1]), /JSON/);
  socket.skipReceived();
  socket.send(['AUTH', 'x']);
  assert.match(String((await socket.next(isNotice))[1]), /unknown message type/);
  socket.skipReceived();
  socket.send(['EVENT', 'not an event']);
  assert.match(String((await socket.next(isNotice))[1]), /^invalid/);
  socket.skipReceived();
  socket.send(['REQ', 'bad', { kinds: 'one' }]);
  assert.deepEqual(await socket.next((m) => m[0] === 'CLOSED'), ['CLOSED', 'bad', 'invalid: kinds must be a list of integers']);
  socket.skipReceived();
  const huge = signed(1, 'x'.repeat(5000));
  socket.send(['EVENT', huge]);
  assert.match(String((await socket.next(isNotice))[1]), /too large/);
  assert.deepEqual(await stored(socket, { ids: [huge.id] }), []);

  const note = signed(1, 'still fine');
  assert.deepEqual(await publish(socket, note), ['OK', note.id, true, '']);
  await socket.close();
});

test('broadcastRaw reaches every client; dropConnections cuts them all', async () => {
  const sockets = await Promise.all([openNostrSocket(relay.url), openNostrSocket(relay.url)]);
  assert.ok(relay.connectionCount() >= 2); // earlier tests' sockets may still be closing
  relay.broadcastRaw('["NOTICE","flood"]');
  for (const socket of sockets) assert.deepEqual(await socket.next(isNotice), ['NOTICE', 'flood']);
  relay.dropConnections();
  await Promise.all(sockets.map((socket) => socket.closed));
  assert.equal(relay.connectionCount(), 0);
});
