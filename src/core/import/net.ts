// Where the server may connect when it fetches a user-given URL (website imports, OpenAPI specs).
//
// With `allowPrivateHosts` false (IMPORT_ALLOW_PRIVATE_HOSTS, false by default), every connection
// goes through `publicOnly`, an undici Agent whose `connect` hook
//   1. refuses an IP literal that is not public before connecting,
//   2. resolves a name itself (`lookup`) and refuses it when any of its addresses is not public,
//      then connects to exactly the addresses it checked (no second resolution, so a name that
//      answers a public address to a check and a private one to the connection — DNS rebinding —
//      has nothing to exploit),
//   3. checks the socket's remote address once connected, and destroys it before a byte is sent
//      if it is not public (belt and braces: whatever path led there).
// Redirects are followed by hand by fetchBounded, and each hop connects through the same hook.
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";
import { Agent, buildConnector } from "undici";

// Two lists: Node's BlockList matches an IPv4 address against IPv6 rules as IPv4-mapped, so one
// list holding ::ffff:0:0/96 would refuse every IPv4 address.
const NOT_PUBLIC_V4 = new BlockList();
const NOT_PUBLIC_V6 = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local (cloud metadata at 169.254.169.254)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 3], // multicast, reserved and broadcast (224/4, 240/4)
] as const) {
  NOT_PUBLIC_V4.addSubnet(net, prefix, "ipv4");
}
for (const [net, prefix] of [
  ["::", 127], // unspecified and loopback
  ["::ffff:0:0", 96], // IPv4-mapped
  ["::", 96], // IPv4-compatible (deprecated)
  ["64:ff9b::", 96], // NAT64: reaches any IPv4 address, private ones included
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments (Teredo 2001::/32 among them)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4: embeds an IPv4 address
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  NOT_PUBLIC_V6.addSubnet(net, prefix, "ipv6");
}

/** True when `address` (an IP literal) is a public unicast address. */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 0) return false;
  return family === 6 ? !NOT_PUBLIC_V6.check(bare, "ipv6") : !NOT_PUBLIC_V4.check(bare, "ipv4");
}

/** The error of a refused address; fetchBounded turns every network failure into one message. */
export class NotPublicAddress extends Error {
  readonly code = "ENOTPUBLIC";
  constructor(address: string) {
    super(`${address} is not a public address`);
  }
}

/** How a name becomes its addresses: `dns.lookup` with `all: true` (a seam for tests). */
export type Resolve = (
  hostname: string,
  options: { family: number; all: true },
  callback: (error: Error | null, addresses: LookupAddress[]) => void,
) => void;

/** `resolve`, refusing a name that has any non-public address (not only the first). */
const publicLookup = (resolve: Resolve) =>
  ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    resolve(hostname, { family: options.family ?? 0, all: true }, (error, addresses) => {
      if (error) return callback(error);
      const refused = addresses.find((entry) => !isPublicAddress(entry.address));
      if (refused || addresses.length === 0) return callback(new NotPublicAddress(refused?.address ?? hostname));
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0].address, addresses[0].family);
    });
  }) as unknown as LookupFunction;

/** An Agent that connects to public addresses only, each name resolved once per connection (see above). */
export function publicOnlyAgent({ resolve = dnsLookup as Resolve, connectTimeoutMs = 10_000 } = {}): Agent {
  const connector = buildConnector({ lookup: publicLookup(resolve), timeout: connectTimeoutMs });
  return new Agent({
    connect(options, callback) {
      const host = options.hostname.replace(/^\[|\]$/g, "");
      if (isIP(host) && !isPublicAddress(host)) {
        callback(new NotPublicAddress(host), null);
        return;
      }
      connector(options, (error, socket) => {
        if (error || !socket) return callback(error ?? new Error("no socket"), null);
        const remote = socket.remoteAddress;
        if (!remote || !isPublicAddress(remote)) {
          socket.destroy();
          return callback(new NotPublicAddress(remote ?? host), null);
        }
        callback(null, socket);
      });
    },
  });
}

/** The dispatcher every user-given URL is fetched with when private hosts are not allowed. */
export const publicOnly = publicOnlyAgent();
