import { describe, expect, it } from 'vitest';
import { assertSameOrigin, findNextLink } from '../../src/api/link.js';
import { InvalidResponseError } from '../../src/errors.js';

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

describe('assertSameOrigin', () => {
  it('accepts the base URL origin', () => {
    expect(() =>
      assertSameOrigin(new URL('https://api.example.com/v1/pets?c=1'), 'https://api.example.com/v1'),
    ).not.toThrow();
  });

  it.each(['http://api.example.com/v1/pets', 'https://api.example.com:8443/v1/pets', 'https://evil.example/v1/pets'])(
    'refuses %s',
    (next) => {
      expect(() => assertSameOrigin(new URL(next), 'https://api.example.com/v1')).toThrow(InvalidResponseError);
    },
  );
});
