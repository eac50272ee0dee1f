/**
 * The build's lazy stand-ins (scripts/build/bundle.mjs LAZY_REQUIRES): each loads the module
 * it stands for on first use, not before, and then behaves as that module. Run here on
 * their generated source with a `require` that records what is loaded.
 */
import { AssertionError } from 'node:assert';
import { createRequire } from 'node:module';
import { compileFunction } from 'node:vm';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a build script in JavaScript, without types
import { lazyStandIn } from '../../scripts/build/bundle.mjs';

const realRequire = createRequire(import.meta.url);

/** The stand-in for `request` of `shape`, evaluated: its exports and the requests it made. */
function standIn(request: string, shape: string): { exports: unknown; loaded: string[] } {
  const loaded: string[] = [];
  const source = (lazyStandIn as (e: { request: string; shape: string }) => string)({ request, shape });
  const module = { exports: {} as unknown };
  const require = (id: string): unknown => {
    loaded.push(id);
    return realRequire(id);
  };
  const load = compileFunction(source, ['module', 'require']) as (m: typeof module, r: typeof require) => void;
  load(module, require);
  return { exports: module.exports, loaded };
}

describe('lazy stand-ins of the build', () => {
  it("'assert': a true value passes without loading node:assert; anything else throws node:assert's error", () => {
    const { exports, loaded } = standIn('node:assert', 'assert');
    const assert = exports as (...args: unknown[]) => void;
    assert(true);
    assert(1, 'a message');
    expect(loaded).toEqual([]);
    expect(() => assert(false, 'the invariant')).toThrow(AssertionError);
    expect(() => assert(false, 'the invariant')).toThrow(/^the invariant$/);
    expect(() => assert(0)).toThrow(AssertionError);
    // No argument at all is an error in node:assert too.
    expect(() => assert()).toThrow(AssertionError);
    expect(loaded).toEqual(['node:assert']);
  });

  it("'function': loads on the first call, whatever its arguments, and passes them through", () => {
    const { exports, loaded } = standIn('node:assert', 'function');
    const call = exports as (...args: unknown[]) => void;
    expect(loaded).toEqual([]);
    call(true);
    expect(loaded).toEqual(['node:assert']);
    expect(() => call(false, 'passed through')).toThrow(/^passed through$/);
    expect(loaded).toEqual(['node:assert']);
  });

  it("'object': loads on the first property read and answers as the module", () => {
    const { exports, loaded } = standIn('node:path', 'object');
    expect(loaded).toEqual([]);
    const path = exports as typeof import('node:path');
    expect(path.join('a', 'b')).toBe('a/b');
    expect('sep' in path).toBe(true);
    expect(loaded).toEqual(['node:path']);
  });
});
