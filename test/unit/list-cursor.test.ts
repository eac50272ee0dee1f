/**
 * list_pets's cursor (src/operations/list-cursor.ts): what `encodeCursor` makes reads back
 * the same; a cursor is judged against the base URL as a next link is, and against the
 * list's own limit and status.
 */
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/base/errors.js';
import { checkCursor, encodeCursor, parseCursor } from '../../src/operations/list-cursor.js';

const BASE = 'https://api.example.com/v1';

describe('list_pets cursor', () => {
  it('reads back what it wrote, the page relative to the origin, resolved against the base URL', () => {
    const page = new URL('https://api.example.com/v1/pets?limit=20&cursor=abc');
    const raw = encodeCursor({ page, skip: 7, limit: 20, status: 'sold' }, BASE);
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
    const read = parseCursor(raw, 'cursor');
    expect(read).toEqual({ page: '/v1/pets?limit=20&cursor=abc', skip: 7, limit: 20, status: 'sold' });
    expect(checkCursor(read, {}, BASE).href).toBe(page.href);
    // The same cursor on a server restarted elsewhere (the sandbox's port) goes on there.
    expect(checkCursor(read, { limit: 20 }, 'http://127.0.0.1:5555/v1').href).toBe(
      'http://127.0.0.1:5555/v1/pets?limit=20&cursor=abc',
    );
  });

  it.each([
    ['another origin', { u: 'https://evil.example/v1/pets' }, 'it leads to https://evil.example'],
    ['a network-path reference', { u: '//evil.example/v1/pets' }, 'it leads to https://evil.example'],
    ['above the base path', { u: '/admin' }, 'it leads to /admin'],
    ['a dot-segment climb', { u: '/v1/%2e%2e/admin' }, 'it leads to /admin'],
    ['a look-alike path', { u: '/v1x/pets' }, 'it leads to /v1x/pets'],
  ])('%s is refused', (_name, json, message) => {
    const cursor = parseCursor(Buffer.from(JSON.stringify(json)).toString('base64url'), 'cursor');
    expect(() => checkCursor(cursor, {}, BASE)).toThrow(UsageError);
    expect(() => checkCursor(cursor, {}, BASE)).toThrow(message);
  });

  it.each(['', 'x', Buffer.from('[1]').toString('base64url'), Buffer.from('{"u":7}').toString('base64url')])(
    'not a cursor: %j',
    (raw) => {
      expect(() => parseCursor(raw, 'cursor')).toThrow('not a next_cursor of list_pets');
    },
  );

  it('another limit or status than the list started with is refused; the same, or none, is not', () => {
    const cursor = { page: '/v1/pets', skip: 0, limit: 20, status: 'sold' as const };
    expect(() => checkCursor(cursor, { limit: 20, status: 'sold' }, BASE)).not.toThrow();
    expect(() => checkCursor(cursor, { limit: 50 }, BASE)).toThrow('limit 50 does not match');
    expect(() => checkCursor(cursor, { status: 'pending' }, BASE)).toThrow('status pending does not match');
  });
});
