import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chooseTracked,
  connectionsNeeded,
  isSilent,
  maxAddressesAfterRefusal,
  pingIntervalMs,
  readSocketMessage,
  reconnectDelayMs,
  shareOf,
  trackingChange,
  transactionsOf,
} from '../../../core/btc/mempool-socket-decisions.ts';

test('chooseTracked takes each list’s most important address in turn, once each, up to the room', () => {
  const merchantA = ['a1', 'a2', 'a3', 'a4'];
  const merchantB = ['b1', 'shared'];
  const merchantC = ['shared', 'c2'];
  assert.deepEqual(chooseTracked([merchantA, merchantB, merchantC], 100), ['a1', 'b1', 'shared', 'a2', 'c2', 'a3', 'a4']);
  assert.deepEqual(chooseTracked([merchantA, merchantB], 3), ['a1', 'b1', 'a2'], 'one merchant with many addresses must not crowd out another');
  assert.deepEqual(chooseTracked([], 10), []);
  assert.deepEqual(chooseTracked([merchantA], 0), []);
});

test('connectionsNeeded opens more than one connection only once the first is open, and never beyond the maximum', () => {
  assert.equal(connectionsNeeded(250, 100, 10, false), 1, 'a server refusing sockets must be retried by one connection');
  assert.equal(connectionsNeeded(250, 100, 10, true), 3);
  assert.equal(connectionsNeeded(0, 100, 10, true), 1, 'the first connection stays for the blocks');
  assert.equal(connectionsNeeded(5_000, 100, 10, true), 10);
});

test('shareOf gives each connection its own slice of the chosen addresses', () => {
  const chosen = ['a', 'b', 'c', 'd', 'e'];
  assert.deepEqual(shareOf(chosen, 0, 2), ['a', 'b']);
  assert.deepEqual(shareOf(chosen, 2, 2), ['e']);
  assert.deepEqual(shareOf(chosen, 3, 2), []);
});

test('trackingChange tells first subscriptions from resumed ones and forgets addresses no longer wanted', () => {
  const first = trackingChange(['a', 'b', 'c'], new Set(), new Set(), new Set(['a', 'b']));
  assert.deepEqual([...first.tracked], ['a', 'b']);
  assert.deepEqual(first.first, ['a', 'b']);
  assert.deepEqual(first.resumed, []);

  // The connection tracking 'a' dropped; 'c' came into room.
  const dropped = trackingChange(['a', 'b', 'c'], first.tracked, first.everTracked, new Set(['b', 'c']));
  assert.deepEqual([...dropped.tracked], ['b', 'c']);
  assert.deepEqual(dropped.first, ['c']);
  assert.deepEqual(dropped.resumed, []);

  const back = trackingChange(['a', 'b', 'c'], dropped.tracked, dropped.everTracked, new Set(['a', 'b', 'c']));
  assert.deepEqual(back.resumed, ['a'], 'an address lost with a connection and tracked again is resumed (a gap to poll)');
  assert.deepEqual(back.first, []);

  const unwanted = trackingChange(['b', 'c'], back.tracked, back.everTracked, new Set(['b', 'c']));
  assert.equal(unwanted.everTracked.has('a'), false, 'an address no longer wanted is forgotten');
  const again = trackingChange(['a', 'b', 'c'], unwanted.tracked, unwanted.everTracked, new Set(['a', 'b', 'c']));
  assert.deepEqual(again.first, ['a'], 'wanted again after being dropped counts as a first subscription');
});

const txid = 'ab'.repeat(32);
const esploraTx = { txid, vout: [{ scriptpubkey: '0014AA', value: 1_000 }], status: { confirmed: false } };

test('readSocketMessage reads block announcements, the reply to want, refusals and address pushes', () => {
  assert.equal(readSocketMessage('not json'), null);
  assert.deepEqual(readSocketMessage(JSON.stringify({ block: { height: 812 } }))?.announcements, [812]);
  assert.deepEqual(readSocketMessage(JSON.stringify({ block: { id: 'x' } }))?.announcements, [null], 'a block without a height is still announced');
  assert.deepEqual(readSocketMessage(JSON.stringify({ blocks: [{ height: 5 }, { height: 9 }, { height: 7 }] }))?.announcements, [9], 'the reply to want announces the highest block');
  assert.deepEqual(readSocketMessage(JSON.stringify({ blocks: [] }))?.announcements, [null]);
  assert.deepEqual(readSocketMessage(JSON.stringify({ pong: true })), { announcements: [], refusal: null, addressPush: null });
  assert.equal(readSocketMessage(JSON.stringify({ 'track-addresses-error': 'too many' }))?.refusal, 'too many');
  const push = { addr: { mempool: [esploraTx] } };
  assert.deepEqual(readSocketMessage(JSON.stringify({ 'multi-address-transactions': push }))?.addressPush, push);
});

test('maxAddressesAfterRefusal adopts the limit the server states, else halves the current one', () => {
  assert.equal(maxAddressesAfterRefusal('"track-addresses" may track a maximum of 10 addresses', 100), 10);
  assert.equal(maxAddressesAfterRefusal('too many addresses', 100), 50);
  assert.equal(maxAddressesAfterRefusal('a maximum of 0 addresses', 100), 50, 'a stated limit of 0 is not adopted');
  assert.equal(maxAddressesAfterRefusal('too many addresses', 1), 1, 'never below one address per connection');
});

test('transactionsOf keeps the tracked addresses’ pushes, skips malformed transactions and collects removed txids', () => {
  const push = {
    mine: { mempool: [esploraTx, { txid: 'bad' }], confirmed: [], removed: [{ txid: 'cd'.repeat(32) }, { nope: 1 }] },
    theirs: { mempool: [{ ...esploraTx, txid: 'ef'.repeat(32) }] },
  };
  const { added, removed } = transactionsOf(push, ['mine']);
  assert.deepEqual(added.map((tx) => tx.txid), [txid]);
  assert.deepEqual(added[0]!.outputs, [{ script: '0014aa', value: 1_000n }]);
  assert.deepEqual(removed, ['cd'.repeat(32)]);
  assert.deepEqual(transactionsOf(push, ['absent']), { added: [], removed: [] });
});

test('reconnectDelayMs backs off exponentially to the maximum, half of the wait jittered', () => {
  assert.equal(reconnectDelayMs(1, 60_000, 0), 500);
  assert.equal(reconnectDelayMs(1, 60_000, 0.999_999), 1_000);
  assert.equal(reconnectDelayMs(3, 60_000, 0.5), 3_000);
  assert.equal(reconnectDelayMs(20, 60_000, 0), 30_000);
  assert.equal(reconnectDelayMs(20, 60_000, 0.999_999), 60_000);
});

test('a connection is pinged at a third of the idle timeout and presumed dead after it', () => {
  assert.equal(pingIntervalMs(90_000), 30_000);
  assert.equal(pingIntervalMs(1_500), 1_000, 'never more often than once a second');
  assert.equal(isSilent(100_000, 10_000, 90_000), false);
  assert.equal(isSilent(100_001, 10_000, 90_000), true);
});

test('readSocketMessage: JSON that is no object (null, a number, a string) is no message, not a throw in the socket handler', () => {
  for (const text of ['null', '5', '"text"', 'true']) assert.equal(readSocketMessage(text), null, text);
});
