import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as nip44 from 'nostr-tools/nip44';
import { getPublicKey } from 'nostr-tools/pure';

interface EncryptDecryptVector {
  sec1: string;
  sec2: string;
  conversation_key: string;
  nonce: string;
  plaintext: string;
  payload: string;
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/nip44-vectors.json', import.meta.url), 'utf8')).v2 as {
  valid: {
    get_conversation_key: Array<{ sec1: string; pub2: string; conversation_key: string }>;
    encrypt_decrypt: EncryptDecryptVector[];
  };
  invalid: {
    get_conversation_key: Array<{ sec1: string; pub2: string; note: string }>;
    decrypt: Array<{ conversation_key: string; nonce: string; plaintext: string; payload: string; note: string }>;
  };
};

const bytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'));
const hex = (data: Uint8Array) => Buffer.from(data).toString('hex');

test('NIP-44 v2 conversation keys match the vectors', () => {
  for (const vector of vectors.valid.get_conversation_key) {
    assert.equal(hex(nip44.getConversationKey(bytes(vector.sec1), vector.pub2)), vector.conversation_key);
  }
});

test('NIP-44 v2 encrypt with the vector nonce gives the vector payload, and decrypt gives the plaintext back', () => {
  for (const vector of vectors.valid.encrypt_decrypt) {
    const conversationKey = nip44.getConversationKey(bytes(vector.sec1), getPublicKey(bytes(vector.sec2)));
    assert.equal(hex(conversationKey), vector.conversation_key);
    assert.equal(nip44.encrypt(vector.plaintext, conversationKey, bytes(vector.nonce)), vector.payload);
    assert.equal(nip44.decrypt(vector.payload, conversationKey), vector.plaintext);
  }
});

test('NIP-44 v2 refuses the invalid conversation keys', () => {
  for (const vector of vectors.invalid.get_conversation_key) {
    assert.throws(() => nip44.getConversationKey(bytes(vector.sec1), vector.pub2), Error, vector.note);
  }
});

test('NIP-44 v2 refuses the invalid payloads', () => {
  for (const vector of vectors.invalid.decrypt) {
    assert.throws(() => nip44.decrypt(vector.payload, bytes(vector.conversation_key)), Error, vector.note);
  }
});

