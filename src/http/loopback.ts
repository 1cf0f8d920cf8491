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

/** True when `url` is https, or http on a loopback host: this server's own pages and the wallet's relay. */
export function isHttpsOrLoopback(url: URL): boolean {
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/**
 * True when `url` is https, or http on a loopback host in the local profile: where the service
 * sends a host's customer or its events. A deployed profile never posts or links to plain http.
 */
export function isHttpsOrLocalLoopback(url: URL, localProfile: boolean): boolean {
  return url.protocol === "https:" || (localProfile && url.protocol === "http:" && isLoopbackHost(url.hostname));
}
