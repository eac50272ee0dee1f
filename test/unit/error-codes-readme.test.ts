/**
 * Scripts act on petstore's machine-readable error codes, so the README names every one of
 * `ERROR_CODES` (src/errors.ts), and no code of its own that the list lacks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/errors.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const EXIT_CODES = README.slice(README.indexOf('## Exit codes'), README.indexOf('## Behaviour under failure'));

describe('README error codes', () => {
  it.each(ERROR_CODES)('the Exit codes section names `%s`', (code) => {
    expect(EXIT_CODES).toContain(`\`${code}\``);
  });

  it('the codes of pets get through the list are documented with their exit codes', () => {
    const getSection = README.slice(README.indexOf('### `pets get`'), README.indexOf('### `sandbox serve`'));
    expect(getSection).toMatch(/\| 5 \| `not_in_list` \|/);
    expect(getSection).toMatch(/\| 5 \| `not_in_first_page` \|/);
    expect(getSection).toMatch(/\| 1 \| `max_pages` \|/);
  });
});
