/**
 * What THIRD_PARTY_NOTICES must carry for the code compiled into jq.wasm and its glue: jq's
 * COPYING, Oniguruma's COPYING, Emscripten's LICENSE and musl's COPYRIGHT, each verbatim
 * (the texts in scripts/build/licences, less their first line, which names the source),
 * and, written out here apart from those files, the passages the licences of the
 * incorporated code ask binaries to reproduce.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

const LICENCES = fileURLToPath(new URL('../../scripts/build/licences/', import.meta.url));

/** Passages of the upstream notices, by the code they cover. */
const PASSAGES: Record<string, string[]> = {
  'jq (MIT)': ['jq is copyright (C) 2012 Stephen Dolan'],
  'decNumber (ICU)': [
    'ICU License - ICU 1.8.1 and later',
    'Copyright (c) 1995-2005 International Business Machines Corporation and others',
    'provided that the above\ncopyright notice(s) and this permission notice appear in all copies of\nthe Software',
  ],
  'Oniguruma (BSD-2-Clause)': [
    'Oniguruma LICENSE\n-----------------\n\nCopyright (c) 2002-2021  K.Kosako  <kkosako0@gmail.com>\nAll rights reserved.',
  ],
  "dtoa.c and g_fmt.c (David M. Gay's)": ['Copyright (c) 1991, 2000, 2001 by Lucent Technologies.'],
  'Emscripten (MIT or NCSA)': [
    'Emscripten is available under 2 licenses, the MIT license and the\nUniversity of Illinois/NCSA Open Source License.',
    'Copyright (c) 2010-2014 Emscripten authors, see AUTHORS file.\nAll rights reserved.',
  ],
  'musl (MIT)': [
    'musl as a whole is licensed under the following standard MIT license:',
    'Copyright © 2005-2020 Rich Felker, et al.',
  ],
};

/**
 * Asserts that `notices` (a THIRD_PARTY_NOTICES file's text) carries the notices of jq,
 * Oniguruma, Emscripten (its glue and runtime) and musl (Emscripten's libc).
 */
export function expectJqNotices(notices: string): void {
  const files = readdirSync(LICENCES).sort();
  expect(files).toEqual([
    'emscripten-6.0.0-LICENSE',
    'emscripten-6.0.0-musl-COPYRIGHT',
    'jq-1.8.2-COPYING',
    'oniguruma-6.9.10-COPYING',
  ]);
  for (const file of files) {
    const text = readFileSync(join(LICENCES, file), 'utf8');
    expect(text.startsWith('# '), `${file}: first line names the source`).toBe(true);
    expect(notices, file).toContain(text.slice(text.indexOf('\n') + 1).trim());
  }
  for (const [what, passages] of Object.entries(PASSAGES))
    for (const passage of passages) expect(notices, what).toContain(passage);
  expect(notices).toMatch(/^ {2}jq 1\.8\.2 /m);
  expect(notices).toMatch(/^ {2}Oniguruma 6\.9\.10 .*\(BSD-2-Clause\)$/m);
  expect(notices).toMatch(/^ {2}Emscripten 6\.0\.0 runtime \(in jq-wasm: .*\) \(MIT OR NCSA\)$/m);
  expect(notices).toMatch(/^ {2}musl libc 1\.2\.6 \(in jq\.wasm, through Emscripten\) \(MIT\)$/m);
}
