import dns from 'node:dns';
import net from 'node:net';

/**
 * Where bot webhooks may go. A webhook URL is chosen by whoever registers the bot, and the server then
 * posts to it from inside the operator's network, so without a guard a URL could reach the loopback
 * interface, the LAN or a cloud metadata endpoint (169.254.169.254) and read back whether it answered:
 * server-side request forgery. Like Mattermost's "allow untrusted internal connections", every
 * internal or reserved address is refused unless the operator lists it in PARLEY_WEBHOOK_ALLOWED_HOSTS
 * (host names, addresses or CIDR ranges).
 *
 * Checked twice: when a bot is registered (the URL's literal address or `localhost`, for a clear 422),
 * and when each delivery connects, on the addresses DNS answered at that moment, so a name that
 * resolves (or is re-pointed) to an internal address is refused too.
 */

/** IANA special-purpose ranges that are not the public internet. */
const INTERNAL_IPV4: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['168.63.129.16', 32], // Azure's host endpoint (WireServer), public-range but internal
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];
const INTERNAL_IPV6: Array<[string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard-only
  ['2001::', 32], // Teredo (tunnels to an obfuscated IPv4 address)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some)
  ['ff00::', 8], // multicast
];

const internal = new net.BlockList();
for (const [address, prefix] of INTERNAL_IPV4) internal.addSubnet(address, prefix, 'ipv4');
for (const [address, prefix] of INTERNAL_IPV6) internal.addSubnet(address, prefix, 'ipv6');

/**
 * The IPv4 address an IPv6 address carries in the forms that reach IPv4 hosts (NAT64 64:ff9b::/96,
 * 6to4 2002::/16, IPv4-compatible ::a.b.c.d, IPv4-translated ::ffff:0:a.b.c.d), or null.
 * (IPv4-mapped ::ffff:a.b.c.d is handled by BlockList; adding ::/96 to it would match every IPv4
 * address, which BlockList also checks in that form.)
 */
function embeddedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (groups === null) return null;
  const fromGroups = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0)) return fromGroups(groups[6] ?? 0, groups[7] ?? 0);
  if (groups[0] === 0x2002) return fromGroups(groups[1] ?? 0, groups[2] ?? 0);
  const zeros = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  // IPv4-compatible (deprecated; :: and ::1 are in the list already) and SIIT's IPv4-translated form.
  if (zeros(0, 6) && ((groups[6] ?? 0) !== 0 || (groups[7] ?? 0) > 1)) return fromGroups(groups[6] ?? 0, groups[7] ?? 0);
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) return fromGroups(groups[6] ?? 0, groups[7] ?? 0);
  return null;
}

/** The eight 16-bit groups of an IPv6 address (without a zone), or null if it has a dotted tail. */
function expandIpv6(address: string): number[] | null {
  if (address.includes('.')) return null;
  const [head = '', tail] = address.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function familyOf(address: string): 'ipv4' | 'ipv6' {
  return net.isIPv6(address) ? 'ipv6' : 'ipv4';
}

/** True for loopback, private, link-local, multicast, documentation and other non-public addresses. */
function isInternalAddress(address: string): boolean {
  if (internal.check(address, familyOf(address))) return true;
  const embedded = familyOf(address) === 'ipv6' ? embeddedIpv4(address) : null;
  return embedded !== null && internal.check(embedded, 'ipv4');
}

/** Names that are loopback by definition (RFC 6761), whatever a resolver says. */
function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** `[::1]` -> `::1`, `Example.COM.` -> `example.com`. */
function normalizeHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}

/** Why a host is refused, as registration answers it and a refused delivery records it. */
function refusalMessage(host: string, address: string): string {
  return `${host} is an internal address (${address}); list it in PARLEY_WEBHOOK_ALLOWED_HOSTS to allow it`;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;
export type BaseLookup = (host: string, options: dns.LookupAllOptions) => Promise<dns.LookupAddress[]>;

export interface WebhookTargets {
  /**
   * Null when the URL may be used, else why not: its host is an internal address by its spelling alone
   * (an address literal, which connects without a lookup, or `localhost`). Names are checked by `lookup`.
   */
  refusalOf(url: URL): string | null;
  /** A `lookup` for http.request: resolves, then refuses (error code EWEBHOOKTARGET) if every address is internal. */
  lookup(host: string, options: dns.LookupOptions, callback: LookupCallback): void;
}

/**
 * @param allowed PARLEY_WEBHOOK_ALLOWED_HOSTS: a host name (exactly that name, whatever it resolves to),
 *   an address, or a CIDR range of addresses that may be reached although internal.
 * @param baseLookup the resolver (tests substitute one to play DNS answers; default the OS resolver).
 */
export function createWebhookTargets(allowed: string[], baseLookup: BaseLookup = (host, options) => dns.promises.lookup(host, options)): WebhookTargets {
  const allowedNames = new Set<string>();
  const allowedAddresses = new net.BlockList();
  for (const entry of allowed) {
    const [address = '', prefix] = entry.split('/');
    if (net.isIP(address) !== 0)
      allowedAddresses.addSubnet(address, prefix === undefined ? (net.isIPv4(address) ? 32 : 128) : Number(prefix), familyOf(address));
    else allowedNames.add(normalizeHost(address));
  }
  const addressAllowed = (address: string) => !isInternalAddress(address) || allowedAddresses.check(address, familyOf(address));

  function refusalOf(url: URL): string | null {
    const host = normalizeHost(url.hostname);
    if (allowedNames.has(host)) return null;
    if (net.isIP(host) !== 0) return addressAllowed(host) ? null : refusalMessage(host, host);
    if (isLoopbackName(host)) return refusalMessage(host, 'loopback');
    return null;
  }

  return {
    refusalOf,
    lookup(host, options, callback) {
      const name = normalizeHost(host);
      baseLookup(name, { ...options, all: true }).then(
        (answers) => {
          // A listed name is trusted whatever it resolves to (a bot on the same host, a LAN service).
          const usable = allowedNames.has(name) ? answers : answers.filter((answer) => addressAllowed(answer.address));
          const first = usable[0];
          if (first === undefined) {
            const refused: NodeJS.ErrnoException = new Error(refusalMessage(name, answers[0]?.address ?? 'no address'));
            refused.code = 'EWEBHOOKTARGET';
            callback(refused, '');
            return;
          }
          if (options.all) callback(null, usable);
          else callback(null, first.address, first.family);
        },
        (error: NodeJS.ErrnoException) => callback(error, ''),
      );
    },
  };
}
