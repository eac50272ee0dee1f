/**
 * How requests are routed through proxies (src/http/proxy.ts, cli-contract.md "Network
 * behaviour"): loopback hosts never, NO_PROXY by curl's rules, HTTPS_PROXY for https only,
 * and proxy URLs read as curl and Go read them.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/base/errors.js';
import { noProxyCovers, parseProxyUrl, routeFor, type ProxySettings } from '../../src/http/proxy.js';
import { thrown } from '../helpers/harness.js';

const BOTH: ProxySettings = {
  httpProxy: { name: 'HTTP_PROXY', value: 'http://proxy:3128' },
  httpsProxy: { name: 'HTTPS_PROXY', value: 'http://proxy:3128' },
};

describe('routeFor', () => {
  it.each([
    'http://127.0.0.1:8080/v1',
    'http://127.0.0.2/v1',
    'http://127.255.255.254/v1',
    'http://localhost:1/v1',
    'http://api.localhost/v1',
    'http://[::1]:8080/v1',
    'https://localhost/v1',
    'http://2130706433/v1',
  ])('%s: never proxied, whatever NO_PROXY says', (url) => {
    for (const noProxy of [undefined, '', 'example.com', 'none']) {
      const settings = { ...BOTH, noProxy: noProxy === undefined ? undefined : { name: 'NO_PROXY', value: noProxy } };
      expect(routeFor(new URL(url), settings)).toEqual({
        direct: expect.stringMatching(/is a loopback host$/) as string,
      });
    }
  });

  it('an https URL goes through HTTPS_PROXY only; an http URL through HTTP_PROXY only', () => {
    const https = { name: 'https_proxy', value: 'http://s:1' };
    const http = { name: 'HTTP_PROXY', value: 'http://h:1' };
    expect(routeFor(new URL('https://api.example.com/v1'), { httpsProxy: https, httpProxy: http })).toEqual({
      via: https,
    });
    expect(routeFor(new URL('https://api.example.com/v1'), { httpProxy: http })).toMatchObject({
      direct: expect.stringContaining('HTTPS_PROXY is not set') as string,
    });
    expect(routeFor(new URL('http://10.0.0.1/v1'), { httpProxy: http })).toEqual({ via: http });
  });

  it('NO_PROXY, as spelled, is named when it decides', () => {
    expect(
      routeFor(new URL('https://api.example.com/v1'), {
        ...BOTH,
        noProxy: { name: 'no_proxy', value: '.example.com' },
      }),
    ).toEqual({
      direct: 'no_proxy covers api.example.com',
    });
  });
});

describe('noProxyCovers (curl rules)', () => {
  const url = new URL('https://api.example.com/v1');
  it.each([
    ['*', true],
    ['api.example.com', true],
    ['example.com', true],
    ['.example.com', true],
    ['*.example.com', true],
    ['API.Example.COM', true],
    ['other.org, example.com', true],
    ['other.org example.com', true],
    ['example.com:443', true],
    ['example.com:8443', false],
    ['ample.com', false],
    ['pi.example.com', false],
    ['', false],
    ['other.org', false],
  ])('%j covers https://api.example.com: %s', (list, want) => {
    expect(noProxyCovers(list, url)).toBe(want);
  });

  it('IPv6 entries, with and without a port', () => {
    expect(noProxyCovers('::2', new URL('https://[::2]/v1'))).toBe(true);
    expect(noProxyCovers('[::2]:443', new URL('https://[::2]/v1'))).toBe(true);
    expect(noProxyCovers('[::2]:80', new URL('https://[::2]/v1'))).toBe(false);
  });
});

describe('parseProxyUrl', () => {
  it.each([
    ['proxy.example:3128', 'http://proxy.example:3128/'],
    ['http://proxy.example:3128', 'http://proxy.example:3128/'],
    ['https://proxy.example', 'https://proxy.example/'],
    [' http://u:p%2Fw@proxy.example:8080 ', 'http://u:p%2Fw@proxy.example:8080/'],
  ])('%j → %s', (value, href) => {
    expect(parseProxyUrl({ name: 'HTTPS_PROXY', value }).href).toBe(href);
  });

  it.each([
    ['http://bob:s3/cr3t@proxy.example:8080', 'not a URL'],
    ['bob:s3/cr3t@proxy.example:8080', 'not a URL'],
    ['socks5://bob:s3cr3t@proxy.example:1080', 'http:// or https://'],
    ['http://', 'not a URL'],
  ])('%j: a UsageError naming the variable, the password masked', (value, why) => {
    const caught = thrown(() => parseProxyUrl({ name: 'https_proxy', value }));
    expect(caught).toBeInstanceOf(UsageError);
    const message = (caught as UsageError).message;
    expect(message).toContain('invalid https_proxy');
    expect(message).toContain(why);
    expect(message).not.toMatch(/s3|cr3t|bob/);
  });
});
