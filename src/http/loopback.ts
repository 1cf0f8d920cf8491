/**
 * The loopback rule of the whole service: the hosts that never leave the machine, where plain
 * http is allowed and where only the local profile's upstreams may live.
 */

/**
 * True for a URL hostname (as `new URL(…).hostname` gives it) that names this machine:
 * `localhost`, any IPv4 address in 127.0.0.0/8, and the IPv6 loopback `[::1]`.
 */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === "localhost" || hostname === "[::1]") return true;
  const octets = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(hostname);
  return octets !== null && octets.slice(1).every((octet) => Number(octet) <= 255);
}
