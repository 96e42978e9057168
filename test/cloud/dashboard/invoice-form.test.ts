import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CreateInvoiceRequest, type AssetId } from '../../../shared/index.ts';
import { ServiceError } from '../../../core/errors.ts';
import { invoiceRequestOfForm, paidWithChoices } from '../../../cloud/dashboard/invoice-form.ts';

const WITH_LIGHTNING: AssetId[] = ['btc', 'btc-lightning', 'usdc-base', 'usdt-base'];

/** The body the form gives, checked against the API's own contract as the engine will check it. */
function bodyOf(form: Record<string, string>, enabled: readonly AssetId[] = WITH_LIGHTNING): Record<string, unknown> {
  const { body } = invoiceRequestOfForm(form, enabled);
  const parsed = CreateInvoiceRequest.safeParse(body);
  assert.ok(parsed.success, `the API takes ${JSON.stringify(body)}: ${parsed.error?.message}`);
  return body;
}

function refusalOf(form: Record<string, string>): ServiceError {
  try {
    invoiceRequestOfForm(form, WITH_LIGHTNING);
  } catch (error) {
    assert.ok(error instanceof ServiceError, String(error));
    return error;
  }
  return assert.fail(`${JSON.stringify(form)} was not refused`);
}

describe('the new-invoice form as a POST /api/v1/invoice body', () => {
  test('each "Paid with" choice of a Bitcoin invoice gives its payment_methods; the default, or none sent, leaves the API its default', () => {
    assert.deepEqual(bodyOf({ asset: 'btc', amount: '5000', paid_with: 'lightning' }), { chain: 'btc', amount_sats: 5000, payment_methods: ['lightning'] });
    assert.deepEqual(bodyOf({ asset: 'btc', amount: '5000', paid_with: 'onchain' }), { chain: 'btc', amount_sats: 5000, payment_methods: ['onchain'] });
    assert.deepEqual(bodyOf({ asset: 'btc', amount: '5000', paid_with: 'onchain-or-lightning' }), { chain: 'btc', amount_sats: 5000 });
    assert.deepEqual(bodyOf({ asset: 'btc', amount: '5000' }), { chain: 'btc', amount_sats: 5000 }, 'a form without the choice (no Lightning wallet) sends none');
    assert.deepEqual(bodyOf({ asset: 'btc', amount: '5000', paid_with: '' }), { chain: 'btc', amount_sats: 5000 });
  });

  test('an unknown "Paid with" value is refused with bad_body, naming the choices', () => {
    for (const paidWith of ['both', 'Lightning', 'onchain,lightning', 'toString', '__proto__']) {
      const refusal = refusalOf({ asset: 'btc', amount: '5000', paid_with: paidWith });
      assert.equal(refusal.code, 'bad_body', paidWith);
      assert.match(refusal.message, /on-chain or Lightning, Lightning only, or on-chain only/);
    }
  });

  test('a USDC or USDT invoice sends no payment_methods, whatever the choice (the API refuses it off Bitcoin)', () => {
    for (const paidWith of ['lightning', 'onchain', 'onchain-or-lightning', 'unknown']) {
      assert.deepEqual(bodyOf({ asset: 'usdc-base', amount: '12.50', paid_with: paidWith }), { chain: 'base', asset: 'usdc', amount_usd: 12.5 }, paidWith);
      assert.deepEqual(bodyOf({ asset: 'usdt-base', amount: '3', paid_with: paidWith }), { chain: 'base', asset: 'usdt', amount_usd: 3 }, paidWith);
    }
  });

  test('the choices offered: none without Lightning, Lightning alone without a Bitcoin key, else all three with the default first', () => {
    assert.deepEqual(paidWithChoices(['btc', 'usdc-base'], false), []);
    assert.deepEqual(paidWithChoices(['usdc-base'], false), []);
    assert.deepEqual(paidWithChoices(['btc', 'btc-lightning'], true), ['lightning']);
    assert.deepEqual(paidWithChoices(['btc', 'btc-lightning', 'usdc-base'], false), ['onchain-or-lightning', 'lightning', 'onchain']);
  });
});
