import { BlockList, isIP } from 'node:net';

/**
 * Ranges a webhook may never reach: private, loopback, link-local (with the 169.254.169.254
 * metadata service), CGNAT (with 100.100.100.200), benchmarking, documentation, multicast,
 * reserved. IPv6 is allowed only inside global unicast 2000::/3, minus the ranges that embed or
 * tunnel to IPv4 or are documentation; IPv4-mapped IPv6 is judged by its IPv4 address.
 */
const blockedV4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blockedV4.addSubnet(net, prefix, 'ipv4');
}

const globalUnicastV6 = new BlockList();
globalUnicastV6.addSubnet('2000::', 3, 'ipv6');
const blockedV6 = new BlockList();
for (const [net, prefix] of [
  ['2001::', 32], // Teredo
  ['2001:2::', 48], // benchmarking
  ['2001:10::', 28], // ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['3fff::', 20], // documentation
] as const) {
  blockedV6.addSubnet(net, prefix, 'ipv6');
}

const MAPPED_V4 = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i;
const MAPPED_V4_HEX = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blockedV4.check(address, 'ipv4');
  if (family !== 6) return false;
  const lower = address.toLowerCase().replace(/^\[|\]$/g, '');
  const dotted = MAPPED_V4.exec(lower);
  if (dotted) return isPublicAddress(dotted[1]);
  const hex = MAPPED_V4_HEX.exec(lower);
  if (hex) {
    const high = parseInt(hex[1], 16);
    const low = parseInt(hex[2], 16);
    return isPublicAddress(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return globalUnicastV6.check(lower, 'ipv6') && !blockedV6.check(lower, 'ipv6');
}
