import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { describe, test } from 'node:test';
import { NonPublicHostError, publicOnlyLookup, refuseNonPublicIpLiteral } from '../../../core/net/public-lookup.ts';
import type { ResolvedAddress, Resolver } from '../../../core/net/webhook-target.ts';

/** A resolver answering from a table; a name not in it does not resolve, as with ENOTFOUND. */
function tableResolver(table: Record<string, ResolvedAddress[]>): Resolver & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers;
  };
  return Object.assign(resolve, { asked });
}

const v4 = (address: string): ResolvedAddress => ({ address, family: 4 });
const v6 = (address: string): ResolvedAddress => ({ address, family: 6 });

/** The lookup's answer as node's net sees it with `all: true` (autoSelectFamily). */
function lookupAll(resolve: Resolver, hostname: string, family: 0 | 4 | 6 = 0): Promise<LookupAddress[]> {
  return new Promise((done, fail) =>
    publicOnlyLookup(resolve)(hostname, { all: true, family }, (error, addresses) => (error ? fail(error) : done(addresses as LookupAddress[]))),
  );
}

/** The lookup's answer in its single-address form (`all` unset). */
function lookupOne(resolve: Resolver, hostname: string, family: 0 | 4 | 6 = 0): Promise<{ address: string; family: number | undefined }> {
  return new Promise((done, fail) =>
    publicOnlyLookup(resolve)(hostname, { family }, (error, address, addressFamily) => (error ? fail(error) : done({ address: address as string, family: addressFamily }))),
  );
}

const resolver = tableResolver({
  'relay.example': [v4('93.184.216.34'), v6('2606:2800:220:1:248:1893:25c8:1946')],
  'v6only.example': [v6('2606:2800:220:1:248:1893:25c8:1946')],
  'loopback.example': [v4('127.0.0.1')],
  'loopback6.example': [v6('::1')],
  'private.example': [v4('10.1.2.3')],
  'metadata.example': [v4('169.254.169.254')],
  'mapped.example': [v6('::ffff:127.0.0.1')],
  'mixed.example': [v4('93.184.216.34'), v4('192.168.1.10')],
  'mixed6.example': [v4('93.184.216.34'), v6('fd00::1')],
  'empty.example': [],
});

/** Asserts the lookup refuses `hostname` with an error naming it, in both forms. */
async function assertRefused(hostname: string, why: RegExp) {
  for (const form of [lookupAll, lookupOne]) {
    await assert.rejects(form(resolver, hostname), (error: Error) => {
      assert.match(error.message, new RegExp(hostname.replace(/\./g, '\\.')), `${form.name}: the error names the host`);
      assert.match(error.message, why, `${form.name}: ${error.message}`);
      return true;
    });
  }
}

describe('a DNS lookup that answers only public addresses', () => {
  test('public answers pass, in the all:true form node uses with autoSelectFamily and in the single form', async () => {
    assert.deepEqual(await lookupAll(resolver, 'relay.example'), [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 },
    ]);
    assert.deepEqual(await lookupOne(resolver, 'relay.example'), { address: '93.184.216.34', family: 4 });
  });

  test('the family asked for is honoured', async () => {
    assert.deepEqual(await lookupAll(resolver, 'relay.example', 6), [{ address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 }]);
    assert.deepEqual(await lookupOne(resolver, 'relay.example', 6), { address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
    assert.deepEqual(await lookupOne(resolver, 'relay.example', 4), { address: '93.184.216.34', family: 4 });
    await assert.rejects(lookupOne(resolver, 'v6only.example', 4), /host v6only\.example has no IPv4 address/);
  });

  test('a loopback, private, metadata or IPv4-mapped loopback answer fails, naming the host and the address', async () => {
    await assertRefused('loopback.example', /127\.0\.0\.1, not a public address/);
    await assertRefused('loopback6.example', /::1, not a public address/);
    await assertRefused('private.example', /10\.1\.2\.3/);
    await assertRefused('metadata.example', /169\.254\.169\.254/);
    await assertRefused('mapped.example', /::ffff:127\.0\.0\.1/);
  });

  test('one private answer among public ones fails the whole host, whichever family is asked for', async () => {
    await assertRefused('mixed.example', /192\.168\.1\.10/);
    await assertRefused('mixed6.example', /fd00::1/);
    // Asking for IPv4 only must not hide the private IPv6 answer: the host is refused, not filtered.
    await assert.rejects(lookupAll(resolver, 'mixed6.example', 4), NonPublicHostError);
  });

  test('a name that does not resolve, or resolves to nothing, fails naming the host', async () => {
    await assertRefused('nowhere.example', /ENOTFOUND/);
    await assertRefused('empty.example', /has no address/);
  });

  test('every lookup asks the resolver again: nothing is cached between connections', async () => {
    const counting = tableResolver({ 'relay.example': [v4('93.184.216.34')] });
    await lookupAll(counting, 'relay.example');
    await lookupOne(counting, 'relay.example');
    assert.deepEqual(counting.asked, ['relay.example', 'relay.example']);
  });
});

describe('IP-literal hosts, which node dials without a lookup', () => {
  test('a private, loopback or metadata literal is refused naming it; a public one passes', () => {
    for (const host of ['127.0.0.1', '10.0.0.8', '169.254.169.254', '[::1]', '[::ffff:127.0.0.1]', '[fd00::1]', '0.0.0.0']) {
      assert.throws(() => refuseNonPublicIpLiteral(host), (error: Error) => error instanceof NonPublicHostError && error.message.includes(host.replace(/^\[|\]$/g, '')), host);
    }
    for (const host of ['93.184.216.34', '[2606:2800:220:1:248:1893:25c8:1946]', 'relay.example']) assert.doesNotThrow(() => refuseNonPublicIpLiteral(host), host);
  });
});
