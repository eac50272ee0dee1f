/**
 * Which hosts never leave this machine (cli-contract.md "Environments": plain http:// only
 * to them; "Network behaviour": never through a proxy). A leaf: the config checks base URLs
 * with it and the transport routes requests by it, so both ask the same question.
 */

/**
 * True for hosts that never leave this machine: `localhost` and `*.localhost` (RFC 6761
 * §6.3), 127.0.0.0/8, `::1` and `::ffff:127.x.y.z`, with or without IPv6 brackets or a
 * trailing dot. Expects a hostname as `URL` gives it (lower case, IPv4 in dotted form,
 * IPv6 compressed).
 */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    h === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(h) ||
    /^::ffff:(?:7f[0-9a-f]{2}:[0-9a-f]{1,4}|127(?:\.\d{1,3}){3})$/.test(h)
  );
}
