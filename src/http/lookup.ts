/**
 * Name resolution for the connector (cli-contract.md "Network behaviour": `localhost` tries
 * every address it resolves to). `localhost` and `*.localhost` give both loopback addresses
 * whatever the hosts file says (RFC 6761 §6.3, curl's rule), IPv6 first as curl tries them,
 * so a server listening on [::1] alone is reached too; every other name goes to the resolver.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';

/** `dns.lookup`'s callback shape, as undici's connector calls it. */
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * `dns.lookup` for undici's `connect.lookup` option, answering `localhost` and
 * `*.localhost` itself (with `::1` then `127.0.0.1`, filtered by `options.family`).
 */
export function lookupWithLoopback(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) {
    const all: LookupAddress[] = [
      { address: '::1', family: 6 },
      { address: '127.0.0.1', family: 4 },
    ].filter((a) => options.family === undefined || options.family === 0 || options.family === a.family);
    if (options.all === true) callback(null, all);
    else callback(null, all[0]?.address ?? '127.0.0.1', all[0]?.family ?? 4);
    return;
  }
  // The resolver is loaded for the first name that needs it, not at every start-up.
  process.getBuiltinModule('node:dns').lookup(hostname, options, callback);
}
