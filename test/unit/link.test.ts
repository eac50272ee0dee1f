import { describe, expect, it } from 'vitest';
import { assertWithinBase, findNextLink } from '../../src/client/link.js';
import { InvalidResponseError } from '../../src/base/errors.js';

const REQ = new URL('https://api.example.com/v1/pets?limit=100');

describe('findNextLink', () => {
  it.each([
    ['<https://api.example.com/v1/pets?cursor=abc>; rel="next"', 'https://api.example.com/v1/pets?cursor=abc'],
    ['</v1/pets?cursor=abc>; rel=next', 'https://api.example.com/v1/pets?cursor=abc'],
    ['<pets?cursor=abc>; rel="next"', 'https://api.example.com/v1/pets?cursor=abc'],
    ['<?cursor=abc>; rel="next"', 'https://api.example.com/v1/pets?cursor=abc'],
    ['<https://a.example/1>; rel="prev", <https://api.example.com/2>; rel="last NEXT"', 'https://api.example.com/2'],
  ])('%s → %s', (header, want) => {
    expect(findNextLink({ link: header }, REQ)?.href).toBe(want);
  });

  it('reads repeated Link headers as one list', () => {
    expect(findNextLink({ link: ['<https://x.example/p>; rel="prev"', '</v1/n>; rel="next"'] }, REQ)?.href).toBe(
      'https://api.example.com/v1/n',
    );
  });

  it.each([[undefined], [''], ['<https://api.example.com/v1/pets?p=1>; rel="prev"']])('%j has no next', (header) => {
    expect(findNextLink(header === undefined ? {} : { link: header }, REQ)).toBeUndefined();
  });
});

describe('assertWithinBase', () => {
  it.each([
    ['https://api.example.com/v1/pets?c=1', 'https://api.example.com/v1'],
    ['https://api.example.com/v1', 'https://api.example.com/v1/'],
    ['https://api.example.com/v1/pets', 'https://api.example.com/v1/'],
    ['https://api.example.com/anything', 'https://api.example.com'],
  ])('accepts %s within %s', (next, base) => {
    expect(() => assertWithinBase(new URL(next), base)).not.toThrow();
  });

  it.each([
    ['http://api.example.com/v1/pets', /another origin, http:\/\/api.example.com;/],
    ['https://api.example.com:8443/v1/pets', /another origin, https:\/\/api.example.com:8443/],
    ['https://evil.example/v1/pets', /another origin, https:\/\/evil.example/],
    ['https://api.example.com/admin', /points to \/admin, outside the base URL's path \/v1; not followed/],
    ['https://api.example.com/v1x/pets', /points to \/v1x\/pets, outside/],
    ['https://api.example.com/v1/../admin', /points to \/admin, outside/],
    ['https://api.example.com/v1/%2e%2E/admin', /points to \/admin, outside/],
    ['https://api.example.com/v1%2F..%2Fadmin', /points to \/v1%2F..%2Fadmin, outside/],
    ['https://api.example.com/', /points to \/, outside/],
  ])('refuses %s, naming it', (next, message) => {
    expect(() => assertWithinBase(new URL(next), 'https://api.example.com/v1')).toThrow(InvalidResponseError);
    expect(() => assertWithinBase(new URL(next), 'https://api.example.com/v1')).toThrow(message);
  });
});
