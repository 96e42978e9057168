import { createHash, randomBytes } from 'node:crypto';
import { verifiedSymbol, type Event, type EventTemplate, type VerifiedEvent } from 'nostr-tools/pure';
import * as ecc from 'tiny-secp256k1';

/**
 * NIP-01 event ids and BIP-340 signatures through tiny-secp256k1 (WebAssembly) and node:crypto's
 * SHA-256, standing in for nostr-tools' finalizeEvent and verifyEvent (pure JavaScript, @noble/curves),
 * which cost several milliseconds per event: a Nostr Wallet Connect request signs one event and
 * reads one, and a relay checks each it forwards. Same results, as the tests check against nostr-tools.
 */

/** The event's id: SHA-256 of its NIP-01 serialization `[0, pubkey, created_at, kind, tags, content]`. */
export function nostrEventId(event: Pick<Event, 'pubkey' | 'created_at' | 'kind' | 'tags' | 'content'>): string {
  return createHash('sha256').update(JSON.stringify([0, event.pubkey, event.created_at, event.kind, event.tags, event.content])).digest('hex');
}

/** The x-only public key (hex) of a 32-byte secret key. */
export function nostrPublicKey(secret: Uint8Array): string {
  return Buffer.from(ecc.xOnlyPointFromScalar(secret)).toString('hex');
}

/** The template signed by `secret`: what finalizeEvent returns. A signer that knows its `pubkey` passes it: deriving it costs as much as the signature. */
export function signNostrEvent(template: EventTemplate, secret: Uint8Array, pubkey = nostrPublicKey(secret)): VerifiedEvent {
  const unsigned = { ...template, pubkey };
  const id = nostrEventId(unsigned);
  const sig = Buffer.from(ecc.signSchnorr(Buffer.from(id, 'hex'), secret, randomBytes(32))).toString('hex');
  return { ...unsigned, id, sig, [verifiedSymbol]: true };
}

const HEX_64 = /^[0-9a-f]{64}$/;
const HEX_128 = /^[0-9a-f]{128}$/;

/** Whether the id is the event's and the signature is its pubkey's over that id: what verifyEvent checks. */
export function verifyNostrEvent(event: Event): event is VerifiedEvent {
  if (typeof event.id !== 'string' || typeof event.pubkey !== 'string' || typeof event.sig !== 'string') return false;
  if (!HEX_64.test(event.id) || !HEX_64.test(event.pubkey) || !HEX_128.test(event.sig)) return false;
  if (nostrEventId(event) !== event.id) return false;
  try {
    return ecc.verifySchnorr(Buffer.from(event.id, 'hex'), Buffer.from(event.pubkey, 'hex'), Buffer.from(event.sig, 'hex'));
  } catch {
    return false; // a pubkey that is no point on the curve
  }
}
