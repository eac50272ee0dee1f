/**
 * `pets watch`: the events of each walk against a store the test changes between walks
 * (the initial `added`, then `added`, `changed` with `previous`, `removed` after two walks
 * without the pet, each once and in order), `--watch-only`, an outage of several walks,
 * `--max-pages` (no removals), `--jq` and `--fields` per event, int64 exact, the output
 * forms refused, a 401, a per-walk `--timeout`, `Retry-After`, the watch's own end
 * (`--max-events`, `--for`), two records with one id in a walk, and the embedded sandbox.
 * In-process (`runMain`); each run is ended as Ctrl-C or SIGTERM would. The tests wait for
 * lines and for requests at the server, never for the clock. Process-level endings (a
 * closed stdout, real signals) and the live table in tmux are in test/e2e/watch.test.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { inSandbox, lastJson, remoteEnv } from '../../helpers/harness.js';
import { runMain } from '../../helpers/run-main.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import {
  errorReply,
  serverPool,
  type RecordedRequest,
  type Reply,
  type TestServer,
} from '../../helpers/test-server.js';
import type { CliResult } from '../../helpers/run-cli.js';

const KEY = 'test-key-watch-0123456789';
const { start, closeAll } = serverPool();
afterAll(async () => {
  await closeAll();
  removeTempDirs();
});

/** A pet as the test server keeps it: `id` is the JSON literal, exact beyond 2^53. */
interface StoredPet {
  id: string;
  name: string;
  categoryId: number;
  status?: string;
}

const petJson = (p: StoredPet): string =>
  `{"id":${p.id},"name":${JSON.stringify(p.name)},"categoryId":${p.categoryId}${p.status === undefined ? '' : `,"status":"${p.status}"`}}`;

/** A store served as pages of `limit`, linked by `Link: rel="next"`, that the test changes between walks. */
interface Store {
  pets: StoredPet[];
  /** Walks started: first pages asked for. */
  readonly walks: number;
  /** Answers instead of the store while it returns a reply (after `onWalk`). */
  fail: ((req: RecordedRequest) => Reply | undefined) | undefined;
  /** Called as walk `n` starts, before its first page is answered. */
  onWalk: ((n: number) => void) | undefined;
  /** Resolves once walk `n` has started. */
  walkStarted(n: number): Promise<void>;
  server: TestServer;
  env: Record<string, string>;
}

async function store(pets: StoredPet[]): Promise<Store> {
  let walks = 0;
  const waiters: { n: number; resolve: () => void }[] = [];
  const server = await start((req) => {
    const url = new URL(req.url, s.server.origin);
    const page = Number(url.searchParams.get('page') ?? '1');
    if (page === 1) {
      walks++;
      s.onWalk?.(walks);
      for (const w of waiters.filter((w) => w.n <= walks)) w.resolve();
    }
    const failed = s.fail?.(req);
    if (failed !== undefined) return failed;
    if (req.headers.authorization !== `Bearer ${KEY}`) return errorReply(401, 'unauthorized', 'invalid API key');
    const limit = Number(url.searchParams.get('limit') ?? '20');
    const status = url.searchParams.get('status');
    const matching = s.pets.filter((p) => status === null || p.status === status);
    const slice = matching.slice((page - 1) * limit, page * limit);
    const next = new URL(url);
    next.searchParams.set('page', String(page + 1));
    return {
      status: 200,
      headers: page * limit < matching.length ? { link: `<${next.href}>; rel="next"` } : {},
      raw: `[${slice.map(petJson).join(',')}]`,
    };
  });
  const s: Store = {
    pets,
    get walks() {
      return walks;
    },
    fail: undefined,
    onWalk: undefined,
    walkStarted: (n) => (walks >= n ? Promise.resolve() : new Promise((resolve) => waiters.push({ n, resolve }))),
    server,
    env: remoteEnv(server.baseUrl, KEY),
  };
  return s;
}

/** A watch run in-process: its events as they come, and its end. */
function watch(
  args: string[],
  env: Record<string, string>,
  opts: { tty?: boolean; columns?: number; rows?: number } = {},
) {
  const controller = new AbortController();
  const lines: string[] = [];
  let pending = '';
  const waiters: { n: number; resolve: () => void }[] = [];
  const run = runMain(['pets', 'watch', '--interval', '1', ...args], {
    env,
    signal: controller.signal,
    ...opts,
    onOutput: (stream, text) => {
      if (stream !== 'stdout') return;
      pending += text;
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      lines.push(...parts);
      for (const w of waiters.filter((w) => lines.length >= w.n)) w.resolve();
    },
  });
  let ended: CliResult | undefined;
  void run.then((r) => {
    ended = r;
    for (const w of waiters) w.resolve();
  });
  return {
    lines,
    run,
    /** Resolves once `n` lines were printed (or the run ended). */
    async lineCount(n: number): Promise<string[]> {
      if (lines.length < n && ended === undefined) await new Promise<void>((resolve) => waiters.push({ n, resolve }));
      if (lines.length < n) throw new Error(`the watch ended after ${lines.length} lines: ${JSON.stringify(ended)}`);
      return lines.slice(0, n);
    },
    /** Ends the run as the signal would (`SIGINT` or `SIGTERM`) and returns its result. */
    async stop(signal: 'SIGINT' | 'SIGTERM' = 'SIGINT'): Promise<CliResult> {
      controller.abort(signal);
      return run;
    },
  };
}

const events = (lines: readonly string[]) =>
  lines.map(
    (l) =>
      JSON.parse(l) as { type: string; pet: Record<string, unknown>; previous?: Record<string, unknown>; at: string },
  );
/** `added 7` for each event line, the id as printed (exact beyond 2^53). */
const brief = (lines: readonly string[]) =>
  lines.map((l) =>
    l.replace(/^\{"type":"(\w+)","pet":\{(?:"id":(\d+))?.*$/, (_, type: string, id = '') => `${type} ${id}`),
  );

const seed = (): StoredPet[] => [
  { id: '1', name: 'Rex', categoryId: 1, status: 'available' },
  { id: '2', name: 'Whiskers', categoryId: 2, status: 'available' },
  { id: '9007199254740993', name: 'Big', categoryId: 3, status: 'pending' },
];

describe.concurrent('pets watch: events off a terminal', () => {
  it('reports the pets there first as added, then added, changed (with previous) and removed after two walks, each once and in order', async () => {
    const s = await store(seed());
    const w = watch([], { ...s.env, PETSTORE_MESSAGES: 'json' });
    const first = await w.lineCount(3);
    expect(brief(first)).toEqual(['added 1', 'added 2', 'added 9007199254740993']);
    // int64 exact, the whole pet, an RFC 3339 time.
    expect(first[2]).toBe(
      `{"type":"added","pet":{"id":9007199254740993,"name":"Big","categoryId":3,"status":"pending"},"at":"2026-11-23T12:00:00.000Z"}`,
    );
    s.pets = [...s.pets, { id: '4', name: 'Polly', categoryId: 4, status: 'available' }];
    expect(brief(await w.lineCount(4)).at(-1)).toBe('added 4');
    s.pets = s.pets.map((p) => (p.id === '2' ? { ...p, status: 'sold' } : p));
    const changed = events(await w.lineCount(5)).at(-1)!;
    expect(changed).toMatchObject({
      type: 'changed',
      pet: { id: 2, name: 'Whiskers', status: 'sold' },
      previous: { id: 2, name: 'Whiskers', status: 'available' },
    });
    const walksBefore = s.walks;
    s.pets = s.pets.filter((p) => p.id !== '1');
    expect(brief(await w.lineCount(6)).at(-1)).toBe('removed 1');
    // Two complete walks lacked it: the one after the removal and the next.
    expect(s.walks).toBeGreaterThanOrEqual(walksBefore + 2);
    // Walks without a change print nothing.
    const after = s.walks;
    await s.walkStarted(after + 2);
    const r = await w.stop();
    expect(brief(w.lines)).toEqual([
      'added 1',
      'added 2',
      'added 9007199254740993',
      'added 4',
      'changed 2',
      'removed 1',
    ]);
    expect(r.code).toBe(130);
    expect(lastJson(r.stderr).code).toBe('interrupted');
  });

  it('a pet missing from one walk only is not removed', async () => {
    const s = await store(seed());
    const w = watch([], s.env);
    await w.lineCount(3);
    const all = s.pets;
    // One walk without pet 1 (an offset pager skipping it), then it is back.
    const gone = s.walks + 1;
    s.onWalk = (n) => {
      s.pets = n === gone ? all.filter((p) => p.id !== '1') : all;
    };
    await s.walkStarted(gone + 3);
    const r = await w.stop('SIGTERM');
    expect(brief(w.lines)).toEqual(['added 1', 'added 2', 'added 9007199254740993']);
    expect(r.code).toBe(143);
  });

  it('--status: a pet that leaves the status is removed from that view', async () => {
    const s = await store(seed());
    const w = watch(['--status', 'available'], s.env);
    expect(brief(await w.lineCount(2))).toEqual(['added 1', 'added 2']);
    expect(s.server.requests[0]!.url).toBe('/v1/pets?limit=100&status=available');
    s.pets = s.pets.map((p) => (p.id === '1' ? { ...p, status: 'sold' } : p));
    expect(brief(await w.lineCount(3)).at(-1)).toBe('removed 1');
    await w.stop();
  });

  it('--watch-only reports only what changes after the first walk', async () => {
    const s = await store(seed());
    const w = watch(['--watch-only'], s.env);
    await s.walkStarted(2);
    expect(w.lines).toEqual([]);
    s.pets = [...s.pets, { id: '5', name: 'Nibbles', categoryId: 5 }];
    expect(brief(await w.lineCount(1))).toEqual(['added 5']);
    const r = await w.stop();
    expect(r.code).toBe(130);
    expect(w.lines).toHaveLength(1);
  });

  it('an outage of several walks: warned, then the differences once, nothing repeated or lost', async () => {
    const s = await store(seed());
    const w = watch(['--retries', '0'], { ...s.env, PETSTORE_MESSAGES: 'json' });
    await w.lineCount(3);
    const down = s.walks + 1;
    s.fail = () => (s.walks < down + 3 ? errorReply(503, 'unavailable', 'down for maintenance') : undefined);
    await s.walkStarted(down + 1);
    // Changed while the server is down: seen by the first walk that succeeds.
    s.pets = [
      ...s.pets.map((p) => (p.id === '1' ? { ...p, name: 'Rex II' } : p)),
      { id: '6', name: 'Shadow', categoryId: 2 },
    ];
    const after = await w.lineCount(5);
    expect(s.walks).toBeGreaterThanOrEqual(down + 3);
    expect(brief(after.slice(3))).toEqual(['changed 1', 'added 6']);
    await s.walkStarted(s.walks + 2);
    const r = await w.stop();
    expect(w.lines).toHaveLength(5);
    const warnings = r.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level?: string; message: string })
      .filter((m) => m.message.includes('a walk of the pets failed'));
    expect(warnings).toHaveLength(3);
    expect(warnings[0]!.message).toContain('down for maintenance');
    expect(r.code).toBe(130);
  });

  it('--max-pages: a walk stopped there reports what it saw, and no removal', async () => {
    const pets = Array.from({ length: 150 }, (_, i) => ({ id: String(i + 1), name: `pet ${i + 1}`, categoryId: 1 }));
    const s = await store(pets);
    const w = watch(['--max-pages', '1'], { ...s.env, PETSTORE_MESSAGES: 'json' });
    await w.lineCount(100);
    // Pet 3 leaves, pet 4 changes: only the change is reported, however many walks pass.
    s.pets = s.pets.filter((p) => p.id !== '3').map((p) => (p.id === '4' ? { ...p, name: 'four' } : p));
    // The walk now sees pet 101 on its one page: added.
    const next = await w.lineCount(102);
    expect(brief(next.slice(100))).toEqual(['changed 4', 'added 101']);
    await s.walkStarted(s.walks + 3);
    const r = await w.stop();
    expect(w.lines).toHaveLength(102);
    expect(r.stderr).toContain(
      'each walk stops at --max-pages 1 while the server links to more: removals are not reported',
    );
  });

  it('--jq runs once per event, and --fields applies to pet and previous', async () => {
    const s = await store(seed());
    const w = watch(['--fields', 'id,status', '--jq', 'select(.type == "changed") | [.pet, .previous]'], s.env);
    await s.walkStarted(2);
    s.pets = s.pets.map((p) => (p.id === '9007199254740993' ? { ...p, status: 'sold', name: 'Bigger' } : p));
    const [line] = await w.lineCount(1);
    expect(line).toBe('[{"id":9007199254740993,"status":"sold"},{"id":9007199254740993,"status":"pending"}]');
    // A change to a field --fields leaves out is not watched.
    s.pets = s.pets.map((p) => (p.id === '1' ? { ...p, name: 'Renamed' } : p));
    await s.walkStarted(s.walks + 2);
    await w.stop();
    expect(w.lines).toHaveLength(1);
  });

  it('--fields cuts the events of -o ndjson', async () => {
    const s = await store(seed());
    const w = watch(['--fields', 'name', '-o', 'ndjson'], s.env);
    const lines = await w.lineCount(3);
    await w.stop();
    expect(events(lines).map((e) => e.pet)).toEqual([{ name: 'Rex' }, { name: 'Whiskers' }, { name: 'Big' }]);
  });

  it('--timeout bounds each walk, not the watch', async () => {
    const s = await store(seed());
    const w = watch(['--timeout', '2'], s.env);
    await w.lineCount(3);
    // Five walks a second apart: twice the timeout in all.
    await s.walkStarted(5);
    const r = await w.stop();
    expect(r.code).toBe(130);
    expect(r.stderr).not.toContain('timed out');
  });

  it("a 429's Retry-After stretches the wait before the next walk", async () => {
    const s = await store(seed());
    const times: number[] = [];
    s.fail = () => {
      times.push(performance.now());
      return s.walks === 1
        ? { ...errorReply(429, 'too_many_requests', 'slow down'), headers: { 'retry-after': '2' } }
        : undefined;
    };
    const w = watch(['--retries', '0'], s.env);
    await w.lineCount(3);
    await w.stop();
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1900);
  });

  it('a 401 ends the watch with exit 4', async () => {
    const s = await store(seed());
    const r = await runMain(['pets', 'watch'], {
      env: remoteEnv(s.server.baseUrl, 'wrong-key-0123456789', { PETSTORE_MESSAGES: 'json' }),
    });
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
    expect(lastJson(r.stderr).status).toBe(401);
  });

  it('a 401 after a good walk ends it too, after the events printed', async () => {
    const s = await store(seed());
    const w = watch([], { ...s.env, PETSTORE_MESSAGES: 'json' });
    await w.lineCount(3);
    s.fail = () => errorReply(401, 'unauthorized', 'key revoked');
    const r = await w.run;
    expect(r.code).toBe(4);
    expect(lastJson(r.stderr).message).toContain('key revoked');
  });

  it.each([
    [['-o', 'json'], 'pets watch prints events'],
    [['-o', 'tsv'], 'pets watch prints events'],
    [['--json'], 'pets watch prints events'],
    [['-o', 'csv'], '--output csv'],
    [['-o', 'table'], 'needs a terminal'],
    [['--interval', '0.5'], 'invalid --interval "0.5": must be a number of seconds, at least 1 and at most 86400'],
    [['--interval', 'abc'], 'invalid --interval "abc"'],
    [['--max-pages', '0'], 'invalid --max-pages "0"'],
  ])('%j is refused with exit 2, nothing sent', async (args, message) => {
    const s = await store(seed());
    const r = await runMain(['pets', 'watch', ...args], { env: { ...s.env, PETSTORE_MESSAGES: 'json' } });
    expect(r.code).toBe(2);
    expect(lastJson(r.stderr).message).toContain(message);
    expect(s.server.requests).toHaveLength(0);
  });

  it('--interval takes decimals', async () => {
    const s = await store(seed());
    const w = watch(['--interval', '1.5'], s.env);
    await s.walkStarted(2);
    expect((await w.stop()).code).toBe(130);
  });
});

describe.concurrent('pets watch: its own end (--max-events, --for), and two records with one id', () => {
  const warningsOf = (stderr: string, words: string) =>
    stderr
      .trim()
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { message: string })
      .filter((m) => m.message.includes(words));

  it("--max-events counts the first walk's pets unless --watch-only, prints exactly N and ends with exit 0", async () => {
    const s = await store(seed());
    const w = watch(['--max-events', '2'], s.env);
    const r = await w.run;
    expect(r.code).toBe(0);
    expect(brief(w.lines)).toEqual(['added 1', 'added 2']);
  });

  it('--max-events with --watch-only: a walk of three changes prints the first and ends with exit 0', async () => {
    const s = await store(seed());
    const w = watch(['--watch-only', '--max-events', '1'], s.env);
    await s.walkStarted(2);
    s.pets = [
      ...s.pets.filter((p) => p.id !== '1'),
      { id: '7', name: 'Polly', categoryId: 4 },
      { id: '8', name: 'Nemo', categoryId: 4 },
    ];
    const r = await w.run;
    expect(r.code).toBe(0);
    expect(brief(w.lines)).toEqual(['added 7']);
  });

  it('--for 3s on a quiet store ends with exit 0 after about 3 s', async () => {
    const s = await store(seed());
    const started = performance.now();
    const w = watch(['--for', '3s'], s.env);
    const r = await w.run;
    const ms = performance.now() - started;
    expect(r.code).toBe(0);
    expect(brief(w.lines)).toEqual(['added 1', 'added 2', 'added 9007199254740993']);
    expect(ms).toBeGreaterThanOrEqual(2500);
    // Generous: a busy machine may be slow to start the run, never to end it early.
    expect(ms).toBeLessThan(60_000);
    expect(s.walks).toBeGreaterThanOrEqual(1);
  });

  it('--for and --max-events refuse a bad value with exit 2, naming it', async () => {
    const s = await store(seed());
    for (const [flag, value] of [
      ['--for', '10d'],
      ['--for', '0'],
      ['--max-events', '0'],
    ] as const) {
      const r = await runMain(['pets', 'watch', flag, value], { env: { ...s.env, PETSTORE_MESSAGES: 'json' } });
      expect(r.code).toBe(2);
      expect(lastJson(r.stderr).message).toContain(`invalid ${flag} "${value}"`);
    }
    expect(s.walks).toBe(0);
  });

  it('two different records with one id: one warning a walk, naming the id; the one sent last is kept', async () => {
    const s = await store([
      ...seed(),
      { id: '1', name: 'Rex the second', categoryId: 1, status: 'sold' },
      { id: '2', name: 'Whiskers II', categoryId: 2, status: 'available' },
    ]);
    const w = watch([], { ...s.env, PETSTORE_MESSAGES: 'json' });
    await s.walkStarted(4);
    const r = await w.stop();
    expect(brief(w.lines)).toEqual(['added 1', 'added 2', 'added 9007199254740993']);
    expect(events(w.lines)[0]!.pet).toMatchObject({ name: 'Rex the second', status: 'sold' });
    const warnings = warningsOf(r.stderr, 'two different pets with id');
    // Walks 1 to 3 ended before walk 4 started; walk 4 may have ended too.
    expect(warnings.length).toBeGreaterThanOrEqual(3);
    expect(warnings.length).toBeLessThanOrEqual(4);
    expect(warnings.map((m) => /^walk (\d+) /.exec(m.message)?.[1])).toEqual(
      ['1', '2', '3', '4'].slice(0, warnings.length),
    );
    expect(warnings[0]!.message).toContain('with id 1;');
  });

  it('the same record twice, as offset paging shows during an insert, is not warned about', async () => {
    const s = await store([...seed(), seed()[0]!]);
    const w = watch([], { ...s.env, PETSTORE_MESSAGES: 'json' });
    await s.walkStarted(3);
    const r = await w.stop();
    expect(brief(w.lines)).toEqual(['added 1', 'added 2', 'added 9007199254740993']);
    expect(warningsOf(r.stderr, 'two different pets')).toEqual([]);
  });
});

describe.concurrent('pets watch on a terminal', () => {
  const ESC = String.fromCharCode(27);
  /** The frames drawn, split where the cursor goes back up to the first line of the one before. */
  const frames = (text: string): string[] => text.split(new RegExp(`${ESC}\\[\\d+A`));

  it('draws the rows that fit and "N more", redraws in place, says when the view is stale, and shows the cursor at the end', async () => {
    const pets = Array.from({ length: 20 }, (_, i) => ({ id: String(i + 1), name: `pet ${i + 1}`, categoryId: 1 }));
    const s = await store(pets);
    let out = '';
    const controller = new AbortController();
    const run = runMain(['pets', 'watch', '--interval', '1', '--retries', '0'], {
      env: { ...s.env, NO_COLOR: '1' },
      tty: true,
      columns: 60,
      rows: 8,
      signal: controller.signal,
      onOutput: (stream, text) => {
        if (stream === 'stdout') out += text;
      },
    });
    await s.walkStarted(2);
    s.fail = () => errorReply(503, 'unavailable', 'down');
    await s.walkStarted(4);
    s.fail = undefined;
    await s.walkStarted(6);
    controller.abort('SIGINT');
    const r = await run;
    expect(r.code).toBe(130);
    expect(out.startsWith('\u001b[?25l')).toBe(true);
    expect(out.endsWith('\u001b[?25h')).toBe(true);
    const drawn = frames(out);
    expect(drawn.length).toBeGreaterThanOrEqual(5);
    const first = drawn[0]!.split('\n');
    // 8 rows: the header, 4 pets, "16 more", the status line, and the last row kept free.
    expect(first.slice(0, 7).map((l) => l.replace(`${ESC}[?25l\r${ESC}[J`, '').trimEnd())).toEqual([
      '  ID  NAME   CATEGORY  STATUS',
      '  1   pet 1  1',
      '  2   pet 2  1',
      '  3   pet 3  1',
      '  4   pet 4  1',
      '  16 more',
      // The first walk counts pets: the pets already there are no changes.
      expect.stringMatching(/^updated \d\d:\d\d:\d\d · 20 pets · every 1 s$/),
    ]);
    expect(out).toMatch(/\nstale since \d\d:\d\d:\d\d · next try in 1 s · down\n/);
    expect(out).toMatch(/\nstale since \d\d:\d\d:\d\d · next try in 2 s · down\n/);
    expect(drawn.at(-1)).toMatch(/updated \d\d:\d\d:\d\d · no changes · 20 pets/);
  });

  /**
   * Watches `pets` on a terminal whose clock (the run's `now`) reads `clockAt(n)` from the start
   * of walk `n`, adds a pet as walk 2 starts, and returns, for each frame drawn after a walk
   * (frame n: walk n), whether the new pet's row is marked, and each frame's status line.
   */
  async function markedFrames(walks: number, clockAt: (walk: number) => number) {
    const s = await store([
      { id: '1', name: 'Rex', categoryId: 1 },
      { id: '2', name: 'Tom', categoryId: 1 },
    ]);
    let clockMs = clockAt(1);
    s.onWalk = (n) => {
      clockMs = clockAt(n);
      if (n === 2) s.pets.push({ id: '3', name: 'Zed', categoryId: 3 });
    };
    let out = '';
    const controller = new AbortController();
    const run = runMain(['pets', 'watch', '--interval', '1'], {
      env: { ...s.env, NO_COLOR: '1' },
      tty: true,
      columns: 60,
      rows: 10,
      now: () => new Date(clockMs),
      signal: controller.signal,
      onOutput: (stream, text) => {
        if (stream === 'stdout') out += text;
      },
    });
    // Walk n + 1 starts once walk n's frame is drawn.
    await s.walkStarted(walks + 1);
    controller.abort('SIGINT');
    expect((await run).code).toBe(130);
    const drawn = frames(out).slice(0, walks);
    expect(drawn).toHaveLength(walks);
    return drawn.map((frame) => {
      const lines = frame.split('\n').map((l) => l.replace(new RegExp(`^.*${ESC}\\[J`), ''));
      const zed = lines.find((l) => / 3 +Zed /.test(l));
      return { marked: zed?.startsWith('*') ?? false, status: lines.filter((l) => l.startsWith('updated')).join('') };
    });
  }

  it("the first walk's status line counts pets, not changes, and marks nothing; a change's mark stays two walks and at least 5 s", async () => {
    // A walk a second (the run's clock): the mark from walk 2 stays until 5 s have passed, at walk 7.
    const quick = await markedFrames(8, (n) => Date.UTC(2026, 10, 29, 12, 0, n));
    expect(quick[0]!.status).toMatch(/^updated \d\d:\d\d:\d\d · 2 pets · every 1 s$/);
    expect(quick[1]!.status).toMatch(/^updated \d\d:\d\d:\d\d · 1 change · 3 pets · every 1 s$/);
    expect(quick[2]!.status).toMatch(/ · no changes · 3 pets · /);
    expect(quick.map((f) => f.marked)).toEqual([false, true, true, true, true, true, false, false]);
  });

  it("a change's mark stays for two walks however long they are apart", async () => {
    // A walk every 10 s (the run's clock): 5 s have passed by walk 3, but the mark stays for it.
    const slow = await markedFrames(4, (n) => Date.UTC(2026, 10, 29, 12, 0, 0) + n * 10_000);
    expect(slow.map((f) => f.marked)).toEqual([false, true, true, false]);
  });

  it.each([[['--jq', '.type']], [['-o', 'ndjson']]])('%j prints events on a terminal, not the table', async (args) => {
    const s = await store(seed());
    const w = watch(args, s.env, { tty: true });
    const lines = await w.lineCount(3);
    await w.stop();
    expect(lines.join('\n')).not.toContain('ID');
    expect(lines[0]).toMatch(/added/);
  });
});

describe('pets watch against the embedded sandbox', () => {
  it('reports the seed as added, then a pet created by another run', async () => {
    const dir = tempDir();
    expect((await inSandbox(dir, ['pets', 'list', '--limit', '1'])).code).toBe(0);
    const w = watch(['--env', 'sandbox'], { PETSTORE_CONFIG_DIR: dir });
    const seedLines = await w.lineCount(10);
    expect(brief(seedLines)[0]).toBe('added 1');
    const created = await inSandbox(dir, ['pets', 'create', '--name', 'Zed', '--category-id', '3', '-o', 'ndjson']);
    expect(created.code).toBe(0);
    const id = /"id":(\d+)/.exec(created.stdout)?.[1];
    expect(brief(await w.lineCount(11)).at(-1)).toBe(`added ${id}`);
    expect((await w.stop()).code).toBe(130);
  });

  it('--watch-only --max-events 1 prints exactly one event, a pet another run creates, and ends with exit 0', async () => {
    const dir = tempDir();
    expect((await inSandbox(dir, ['pets', 'list', '--limit', '1'])).code).toBe(0);
    const w = watch(['--env', 'sandbox', '--watch-only', '--max-events', '1'], { PETSTORE_CONFIG_DIR: dir });
    let ended: CliResult | undefined;
    void w.run.then((r) => (ended = r));
    // The first walk may not have been made yet, and a pet created before it is no change:
    // pets are created, a second apart, until the watch reports one.
    const ids: string[] = [];
    while (ended === undefined) {
      const created = await inSandbox(dir, ['pets', 'create', '--name', 'Zed', '--category-id', '3', '-o', 'ndjson']);
      expect(created.code).toBe(0);
      ids.push(/"id":(\d+)/.exec(created.stdout)![1]!);
      await Promise.race([w.run, new Promise((resolve) => setTimeout(resolve, 1000))]);
    }
    expect(ended.code).toBe(0);
    expect(w.lines).toHaveLength(1);
    const [event] = events(w.lines);
    expect(event!.type).toBe('added');
    expect(ids).toContain(String(event!.pet.id));
  });
});
