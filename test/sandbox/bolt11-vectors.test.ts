import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import bolt11 from 'bolt11';

interface ValidVector {
  title: string;
  invoice: string;
  network: string;
  amountMsat: string | null;
  timestamp: number;
  paymentHash: string;
  paymentSecret: string;
  payeeNodeKey: string;
  description: string | null;
  descriptionHash: string | null;
  expirySeconds: number | null;
  fallbackAddress?: string;
  minFinalCltvExpiry?: number;
}

const vectors = JSON.parse(readFileSync(new URL('../fixtures/bolt11-vectors.json', import.meta.url), 'utf8')) as {
  valid: ValidVector[];
  invalid: Array<{ title: string; invoice: string }>;
};
// BOLT #11: "Default is 3600 (1 hour) if not specified."
const DEFAULT_EXPIRY_SECONDS = 3600;

for (const vector of vectors.valid) {
  test(`BOLT #11 example decodes as the spec documents: ${vector.title}`, () => {
    const decoded = bolt11.decode(vector.invoice);
    const tags = decoded.tagsObject;
    assert.equal(decoded.network?.bech32, vector.network);
    assert.equal(decoded.millisatoshis ?? null, vector.amountMsat);
    assert.equal(decoded.timestamp, vector.timestamp);
    assert.equal(tags.payment_hash, vector.paymentHash);
    assert.equal(tags.payment_secret, vector.paymentSecret);
    // No `n` field in these examples: the key is recovered from the signature, so this checks it too.
    assert.equal(decoded.payeeNodeKey, vector.payeeNodeKey);
    assert.equal(tags.description ?? null, vector.description);
    assert.equal(tags.purpose_commit_hash ?? null, vector.descriptionHash);
    assert.equal(tags.expire_time ?? null, vector.expirySeconds);
    const expiry = vector.expirySeconds ?? DEFAULT_EXPIRY_SECONDS;
    if (vector.expirySeconds !== null) assert.equal(decoded.timeExpireDate, vector.timestamp + expiry);
    if (vector.fallbackAddress) assert.equal(tags.fallback_address?.address, vector.fallbackAddress);
    if (vector.minFinalCltvExpiry) assert.equal(tags.min_final_cltv_expiry, vector.minFinalCltvExpiry);
  });
}

test('the hashed-description example commits to the long description the spec gives', () => {
  const cake =
    'One piece of chocolate cake, one icecream cone, one pickle, one slice of swiss cheese, one slice of salami, one lollypop, one piece of cherry pie, one sausage, one cupcake, and one slice of watermelon';
  const hashed = vectors.valid.find((vector) => vector.descriptionHash);
  assert.equal(createHash('sha256').update(cake).digest('hex'), hashed?.descriptionHash);
});

for (const vector of vectors.invalid) {
  test(`BOLT #11 invalid example is refused: ${vector.title}`, () => {
    assert.throws(() => bolt11.decode(vector.invoice));
  });
}
