import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from './public-address.ts';
import { systemResolver, type ResolvedAddress, type Resolver } from './webhook-target.ts';

/** A host refused because it is, or resolves to, an address that is not public. */
export class NonPublicHostError extends Error {
  readonly code = 'ENONPUBLIC';
  constructor(readonly host: string, address: string) {
    super(address === host ? `host ${host} is not a public address` : `host ${host} resolves to ${address}, not a public address`);
  }
}

/**
 * Throws NonPublicHostError when `host` (a URL's hostname, brackets and all) is an IP literal
 * outside the public ranges. Needed before connecting because node dials an IP literal directly:
 * the lookup below is never asked about it.
 */
export function refuseNonPublicIpLiteral(host: string): void {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare) && !isPublicAddress(bare)) throw new NonPublicHostError(bare, bare);
}

/** The family a lookup asks for: node passes 0, 4, 6 or their names. */
function wantedFamily(options: LookupOptions | undefined): 4 | 6 | null {
  const family = options?.family;
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return null;
}

/** The checked answers for `hostname`, or why none may be used: every answer must be public, whatever family was asked for. */
async function checkedAnswers(resolve: Resolver, hostname: string, family: 4 | 6 | null): Promise<ResolvedAddress[]> {
  const answers = await resolve(hostname);
  // One private answer among public ones refuses the host: which answer gets used is not ours to choose.
  const refused = answers.find((answer) => !isPublicAddress(answer.address));
  if (refused) throw new NonPublicHostError(hostname, refused.address);
  const usable = family ? answers.filter((answer) => answer.family === family) : answers;
  if (usable.length === 0) throw Object.assign(new Error(`host ${hostname} has no ${family ? `IPv${family} ` : ''}address`), { code: 'ENOTFOUND', hostname });
  return usable;
}

/**
 * A `dns.lookup` replacement for sockets that may reach only public addresses: it resolves the
 * host through `resolve` and fails, naming the host, when any answer is not public; otherwise it
 * answers the addresses it checked. The socket connects to that very answer, so there is no second
 * lookup a rebinding name could answer differently. IP literals never reach a lookup: check them
 * with refuseNonPublicIpLiteral.
 */
export function publicOnlyLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    checkedAnswers(resolve, hostname, wantedFamily(options)).then(
      (answers) => {
        if (options?.all) callback(null, answers.map((answer): LookupAddress => ({ address: answer.address, family: answer.family })));
        else callback(null, answers[0].address, answers[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, options?.all ? [] : ''),
    );
  };
}
