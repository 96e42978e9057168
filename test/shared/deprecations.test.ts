import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { errorCatalogue } from '../../shared/index.ts';
import { deprecatedFields } from '../../shared/deprecations.ts';

const root = new URL('../..', import.meta.url);
const document = JSON.parse(readFileSync(new URL('openapi/openapi.json', root), 'utf8'));

type Schema = { properties?: Record<string, Schema>; deprecated?: boolean; description?: string; [key: string]: unknown };

/** Every object property in the document as [schema path, name, property, sibling names]. */
function properties(node: unknown, path: string, found: Array<[string, string, Schema, string[]]> = []) {
  if (Array.isArray(node)) node.forEach((item, index) => properties(item, `${path}/${index}`, found));
  else if (node && typeof node === 'object') {
    const schema = node as Schema;
    if (schema.properties && typeof schema.properties === 'object' && !Array.isArray(schema.properties)) {
      const names = Object.keys(schema.properties);
      for (const [name, property] of Object.entries(schema.properties)) found.push([path, name, property, names]);
    }
    for (const [key, value] of Object.entries(schema)) properties(value, `${path}/${key}`, found);
  }
  return found;
}

/** The deprecated names and what each schema that has one must carry beside it. */
const replacedBy: Record<string, string> = {
  amount_usdc: 'amount_token',
  amount_usdc_units: 'amount_token_units',
  btc_source: 'chains',
  btc_source_error: 'chains',
  btc_progress: 'chains',
  btc_headers: 'chains',
  btc_watch: 'chains',
  btc_gap: 'chains',
  base: 'chains',
  evm_chains: 'chains',
  btc_xpub: 'receive_methods',
  base_xpub: 'receive_methods',
  base_address: 'receive_methods',
};

describe('deprecations in the contract', () => {
  const all = properties(document.components.schemas, '#/components/schemas');

  it('the OpenAPI document marks exactly the old names deprecated, each beside its replacement', () => {
    const deprecated = all.filter(([, , property]) => property.deprecated === true);
    assert.deepEqual([...new Set(deprecated.map(([, name]) => name))].sort(), Object.keys(replacedBy).sort());
    for (const [path, name, property, siblings] of deprecated) {
      assert.ok(siblings.includes(replacedBy[name]!), `${path}.${name} stands beside ${replacedBy[name]}`);
      assert.match(property.description ?? '', /^Deprecated: use /, `${path}.${name} names its replacement first`);
    }
    for (const [path, name, property] of all) {
      if (!(name in replacedBy)) assert.notEqual(property.deprecated, true, `${path}.${name} is not deprecated`);
    }
    for (const schema of ['BaseInvoice', 'BaseXpubInvoiceCreated', 'BaseFixedInvoiceCreated', 'BaseCheckoutView']) {
      assert.equal(document.components.schemas[schema].properties.amount_usdc.deprecated, true, `${schema}.amount_usdc`);
      assert.ok(document.components.schemas[schema].required.includes('amount_token'), `${schema} always carries amount_token`);
    }
    assert.equal(document.components.schemas.Health.properties.ok.deprecated, undefined, "the spec's Health fields are not deprecated");
  });

  it('llms.txt lists every deprecated field with its replacement, and the list matches the document', () => {
    const llms = readFileSync(new URL('llms.txt', root), 'utf8');
    const section = llms.slice(llms.indexOf('## Deprecated'), llms.indexOf('\n## ', llms.indexOf('## Deprecated') + 1));
    assert.deepEqual(deprecatedFields.map(({ field }) => field).sort(), Object.keys(replacedBy).sort());
    for (const { field, replacement } of deprecatedFields) assert.ok(section.includes(`- \`${field}\` (`) && section.includes(replacement), field);
    assert.doesNotMatch(llms.slice(llms.indexOf('## Cloud')), /at least one of `btc_xpub`/, 'sign-up is taught with receive_methods');
  });

  it('the disabled codes share one condition, documented in the error envelope', () => {
    const sharing = Object.entries(errorCatalogue).filter(([, entry]) => (entry as { condition?: string }).condition === 'chain_not_configured');
    assert.deepEqual(sharing.map(([code]) => code).sort(), ['base_disabled', 'chain_disabled']);
    const condition = document.components.schemas.ErrorDetail.properties.condition;
    assert.deepEqual(condition.enum, ['chain_not_configured']);
    assert.ok(!document.components.schemas.ErrorDetail.required.includes('condition'), 'an addition: absent where no codes share a meaning');
    assert.deepEqual(document.components.schemas.ErrorDetail.required.sort(), ['code', 'message'], "the spec's envelope as it was");
  });

  it('the contract version is the package version, beside the interface version the specification fixes', () => {
    const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
    assert.equal(document.info['x-contract-version'], pkg.version);
    const changelog = readFileSync(new URL('docs/changelog.md', root), 'utf8');
    assert.ok(changelog.includes(`## ${pkg.version}:`), 'the changelog has an entry for this version');
  });
});

describe('answers of a listener before contract 0.7.0', () => {
  it('parse with the token amount under its chain-neutral names too; other answers stay as they are', async () => {
    const { withTokenAmountNames } = await import('../../shared/index.ts');
    const older = { invoice_id: 'inv_1', asset: 'USDT', amount_usdc: '3.000004', amount_usdc_units: 3_000_004 };
    assert.deepEqual(withTokenAmountNames(older), { ...older, amount_token: '3.000004', amount_token_units: 3_000_004 });
    const current = { ...older, amount_token: '3.000004', amount_token_units: 3_000_004 };
    assert.equal(withTokenAmountNames(current), current);
    const bitcoin = { invoice_id: 'inv_2', amount_btc: '0.00001000' };
    assert.equal(withTokenAmountNames(bitcoin), bitcoin);
    assert.equal(withTokenAmountNames(null), null);
  });
});
