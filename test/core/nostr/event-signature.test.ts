import assert from 'node:assert/strict';
import { test } from 'node:test';
import { finalizeEvent, generateSecretKey, getEventHash, getPublicKey, verifyEvent, type Event } from 'nostr-tools/pure';
import { nostrEventId, nostrPublicKey, signNostrEvent, verifyNostrEvent } from '../../../core/nostr/event-signature.ts';

const template = { kind: 23194, created_at: 1_700_000_000, tags: [['p', 'ab'.repeat(32)], ['encryption', 'nip44_v2']], content: 'payload "quoted" \\ é ✓\n' };
/** A copy as it arrives from a socket: no cached verification from the signer. */
const received = (event: Event): Event => JSON.parse(JSON.stringify(event));

test('events signed here are what nostr-tools signs: same pubkey and id, and nostr-tools verifies the signature', () => {
  const secret = generateSecretKey();
  const signed = signNostrEvent(template, secret);
  assert.equal(signed.pubkey, getPublicKey(secret));
  assert.equal(nostrPublicKey(secret), getPublicKey(secret));
  assert.equal(signed.id, getEventHash(signed));
  assert.equal(nostrEventId(signed), signed.id);
  assert.equal(verifyEvent(received(signed)), true);
  const withKnownKey = signNostrEvent(template, secret, getPublicKey(secret));
  assert.equal(verifyEvent(received(withKnownKey)), true);
});

test("nostr-tools' events verify here; a changed content, id, signature or pubkey, or a malformed one, does not", () => {
  const secret = generateSecretKey();
  const event = received(finalizeEvent(template, secret));
  assert.equal(verifyNostrEvent(event), true);
  assert.equal(verifyNostrEvent({ ...event, content: `${event.content}x` }), false, 'content no longer matches the id');
  assert.equal(verifyNostrEvent({ ...event, tags: [] }), false);
  const otherId = getEventHash({ ...event, content: 'other' });
  assert.equal(verifyNostrEvent({ ...event, content: 'other', id: otherId }), false, 'a correct id with the old signature');
  const flipped = (parseInt(event.sig[0], 16) ^ 1).toString(16) + event.sig.slice(1);
  assert.equal(verifyNostrEvent({ ...event, sig: flipped }), false);
  const stranger = getPublicKey(generateSecretKey());
  assert.equal(verifyNostrEvent({ ...event, pubkey: stranger, id: getEventHash({ ...event, pubkey: stranger }) }), false, 'signed by another key');
  // Not an x coordinate on the curve: tiny-secp256k1 throws, the check says no.
  const offCurve = 'ff'.repeat(32);
  assert.equal(verifyNostrEvent({ ...event, pubkey: offCurve, id: getEventHash({ ...event, pubkey: offCurve }) }), false);
  assert.equal(verifyNostrEvent({ ...event, sig: event.sig.toUpperCase() }), false, 'NIP-01: lowercase hex');
  assert.equal(verifyNostrEvent({ ...event, sig: event.sig.slice(2) }), false);
  assert.equal(verifyNostrEvent({ ...event, id: 5 } as unknown as Event), false);
});
