/**
 * `pets create --from-file` with requests in flight (cli-contract.md "Bulk create"), in
 * process against pet servers that answer out of order, refuse with 429, close kept-alive
 * connections or fail several records at once: the created pets in input order, every
 * record created once, the account exact, and `--concurrency` refused outside 1-32.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ShutdownRegistry } from '../../../src/shutdown.js';
import {
  gate,
  inLineOrder,
  lineOf,
  petInput,
  petNames,
  petRecords,
  printedNames,
  startPetServer,
  type PetAnswer,
  type PetServer,
} from '../../helpers/pet-server.js';
import { unwrapped } from '../../helpers/run-cli.js';
import { runMain } from '../../helpers/run-main.js';
import { lastJson, remoteEnv } from '../../helpers/harness.js';
import { removeTempDirs, tempDir } from '../../helpers/temp-config.js';
import { errorReply, type TestServerOptions } from '../../helpers/test-server.js';

const KEY = 'pst_bulk_scale_7Hq2Lm9Xw4';
const servers: PetServer[] = [];

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  removeTempDirs();
});

async function petServer(decide?: Parameters<typeof startPetServer>[0], opts?: TestServerOptions): Promise<PetServer> {
  const s = await startPetServer(decide, opts);
  servers.push(s);
  return s;
}

function env(s: PetServer, dir: string, extra: Record<string, string> = {}): Record<string, string> {
  return remoteEnv(s.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, ...extra });
}

/** The names in an NDJSON file. */
const namesIn = (file: string): string[] => printedNames(readFileSync(file, 'utf8'));

/** Line ranges of names (consecutive lines joined), as the account gives them. */
function ranges(names: string[]): { lines: [number, number] }[] {
  const out: { lines: [number, number] }[] = [];
  for (const line of inLineOrder(names).map(lineOf)) {
    const last = out[out.length - 1];
    if (last !== undefined && last.lines[1] + 1 === line) last.lines[1] = line;
    else out.push({ lines: [line, line] });
  }
  return out;
}

/** A 429 with an API Error body and `Retry-After: seconds`. */
function refusal(seconds: string): PetAnswer {
  return { ...errorReply(429, 'rate_limited', 'slow down'), headers: { 'retry-after': seconds } };
}

/**
 * Holds requests until `batch(answeredSoFar)` of them wait, then answers them all, the last
 * to come first: answers come back in the reverse of the order they were sent.
 */
function reversedBatches(batch: (answered: number) => number): () => Promise<PetAnswer> {
  let held: (() => void)[] = [];
  let answered = 0;
  return () =>
    new Promise<PetAnswer>((resolve) => {
      held.push(() => resolve('create'));
      if (held.length < batch(answered)) return;
      const now = held.reverse();
      held = [];
      answered += now.length;
      // One after another, each on a later turn, so each answer really leaves after the one before.
      const next = (): void => {
        now.shift()?.();
        if (now.length > 0) setImmediate(next);
      };
      next();
    });
}

// The file's first test also loads the CLI's modules: a loaded machine took 10 s; only a
// hang takes two minutes.
describe('input order', { timeout: 120_000 }, () => {
  it.each([
    ['the default (4)', [] as string[], 4, 'ndjson'],
    ['--concurrency 16', ['--concurrency', '16'], 16, 'json'],
  ] as const)('%s in flight, answers in reverse order: printed in input order', async (_, flags, n, format) => {
    const records = 48;
    const srv = await petServer(reversedBatches((answered) => Math.min(n, records - answered)));
    const { dir, file } = petInput(records);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', format, ...flags], { env: env(srv, dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.maxPending()).toBe(n);
    // The server created them out of order...
    expect(srv.created()).not.toEqual(petNames(1, records));
    expect(inLineOrder(srv.created())).toEqual(petNames(1, records));
    // ... and they are printed in input order, once each.
    expect(printedNames(r.stdout)).toEqual(petNames(1, records));
  });

  it('--concurrency 1 is one request at a time', async () => {
    const srv = await petServer();
    const { dir, file } = petInput(20);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '1', '-o', 'ndjson'], {
      env: env(srv, dir),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.maxPending()).toBe(1);
    expect(srv.created()).toEqual(petNames(1, 20));
    expect(printedNames(r.stdout)).toEqual(petNames(1, 20));
  });
});

describe('429: a refusal, sent again after Retry-After, fewer requests in flight', () => {
  it('Retry-After: 1 to every fifth first attempt: every record created once, in order, none sent again sooner', async () => {
    const refusedAt = new Map<string, number>();
    const early: string[] = [];
    let firsts = 0;
    const srv = await petServer(({ name, attempt }) => {
      if (attempt === 1 && ++firsts % 5 === 0) {
        refusedAt.set(name, performance.now());
        return refusal('1');
      }
      // The server checks the wait itself: its own clock, from the refusal it sent.
      const at = refusedAt.get(name);
      if (at !== undefined && performance.now() - at < 1000) early.push(name);
      return 'create';
    });
    const records = 30;
    const { dir, file } = petInput(records);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], { env: env(srv, dir) });
    expect(r.code, r.stderr).toBe(0);
    expect(refusedAt.size).toBe(records / 5);
    expect(early).toEqual([]);
    expect(srv.created().length).toBe(records);
    expect(inLineOrder(srv.created())).toEqual(petNames(1, records));
    for (const name of refusedAt.keys()) expect(srv.received().filter((n) => n === name)).toHaveLength(2);
    expect(printedNames(r.stdout)).toEqual(petNames(1, records));
  });

  it("a Retry-After past the record's --timeout is not waited for: that record failed (429), the rest accounted", async () => {
    // 20 s for each record (the others must be answered within it, however loaded the
    // machine) and a Retry-After of 50 s, past it and under the 60 s cap.
    const srv = await petServer(({ name }) => (name === 'P2' ? refusal('50') : 'create'));
    const { dir, file } = petInput(10);
    const r = await runMain(['pets', 'create', '--from-file', file, '--timeout', '20', '-o', 'ndjson'], {
      env: env(srv, dir),
    });
    expect(r.code).toBe(1);
    expect(srv.received().filter((n) => n === 'P2')).toHaveLength(1);
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({
      code: 'rate_limited',
      status: 429,
      failed: [{ line: 2, code: 'rate_limited', status: 429 }],
      unknown: [],
      created: srv.created().length,
      createdRanges: ranges(srv.created()),
    });
    // Records sent with P2 were created; P2 and the records never sent are in the remaining file.
    const notReceived = petNames(1, 10).filter((n) => !srv.received().includes(n));
    expect(namesIn(`${file}.remaining.ndjson`)).toEqual(inLineOrder(['P2', ...notReceived]));
    expect(printedNames(r.stdout)).toEqual(inLineOrder(srv.created()));
  });

  it('after a round of refusals the run keeps half as many requests in flight, then raises it', async () => {
    // 8 in flight, all refused together (Retry-After: 0): the limit halves once, to 4, and
    // grows by one per window of successes (see InFlightLimit).
    const first = gate();
    let refused = 0;
    const afterRefusals: number[] = [];
    const srv = await petServer(async ({ pending, count }) => {
      if (count <= 8) {
        if (count === 8) first.open();
        await first.promise;
        refused++;
        return refusal('0');
      }
      afterRefusals.push(pending);
      await new Promise((r) => setTimeout(r, 5));
      return 'create';
    });
    const records = 40;
    const { dir, file } = petInput(records);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', '8', '-o', 'ndjson'], {
      env: env(srv, dir),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(refused).toBe(8);
    // The requests sent right after the refusals: never more than 5 at once (4, then 5 after
    // four successes), where 8 were before.
    expect(Math.max(...afterRefusals.slice(0, 10))).toBeLessThanOrEqual(5);
    expect(inLineOrder(srv.created())).toEqual(petNames(1, records));
    expect(printedNames(r.stdout)).toEqual(petNames(1, records));
  });
});

// 300 requests, each on a new connection: a loaded machine took 9 s; only a hang takes two minutes.
describe('connections', { timeout: 120_000 }, () => {
  it.each([
    ['the default (4)', [] as string[]],
    ['--concurrency 1', ['--concurrency', '1']],
  ] as const)(
    '%s: a server closing kept-alive connections a few ms after answering: 300 of 300 created',
    async (_, flags) => {
      const srv = await petServer(undefined, { closeIdleAfterMs: 2 });
      const { dir, file } = petInput(300);
      const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson', ...flags], {
        env: env(srv, dir),
      });
      expect(r.code, r.stderr.slice(0, 500)).toBe(0);
      expect(srv.created()).toHaveLength(300);
      expect(inLineOrder(srv.created())).toEqual(petNames(1, 300));
      expect(printedNames(r.stdout)).toEqual(petNames(1, 300));
      // Each POST on a connection of its own, closed after its answer.
      expect(srv.requests.every((q) => q.headers.connection === 'close')).toBe(true);
    },
  );

  it('PETSTORE_BULK_CONNECTIONS=keep-alive reuses connections; another value is refused', async () => {
    const srv = await petServer();
    const { dir, file } = petInput(20);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: env(srv, dir, { PETSTORE_BULK_CONNECTIONS: 'keep-alive' }),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(srv.requests.every((q) => q.headers.connection === 'keep-alive')).toBe(true);
    const bad = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson', '--force'], {
      env: env(srv, dir, { PETSTORE_BULK_CONNECTIONS: 'sometimes' }),
    });
    expect(bad.code).toBe(2);
    expect(lastJson(bad.stderr).message).toBe(
      'invalid PETSTORE_BULK_CONNECTIONS "sometimes": must be one of fresh, keep-alive',
    );
    expect(srv.requests).toHaveLength(20);
  });
});

describe('a stop with several requests in flight', () => {
  const decide = () => {
    const all = gate();
    const fifthAnswered = gate();
    let held = 0;
    return async ({ name }: { name: string }): Promise<PetAnswer> => {
      if (!['P5', 'P6', 'P7', 'P8'].includes(name)) return 'create';
      if (++held === 4) all.open();
      await all.promise;
      if (name === 'P5') {
        setTimeout(() => fifthAnswered.open(), 100);
        return errorReply(400, 'invalid_request', 'invalid name');
      }
      await fifthAnswered.promise;
      return name === 'P6' ? 'create' : name === 'P7' ? 'destroy' : errorReply(400, 'invalid_request', 'name taken');
    };
  };

  it('in JSON: created, failed, unknown and not sent, exactly as the server saw them; the remaining file in input order', async () => {
    const srv = await petServer(decide());
    const { dir, file } = petInput(12);
    const r = await runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], { env: env(srv, dir) });
    expect(r.code).toBe(6);
    const received = new Set(srv.received());
    const notSent = petNames(1, 12).filter((n) => !received.has(n));
    // What the server decided, whatever order the answers came in.
    expect(srv.answered('error')).toEqual(expect.arrayContaining(['P5', 'P8']));
    expect(srv.answered('destroyed')).toEqual(['P7']);
    expect(srv.created()).toEqual(expect.arrayContaining(['P1', 'P2', 'P3', 'P4', 'P6']));
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({
      code: 'invalid_request',
      status: 400,
      records: 12,
      created: srv.created().length,
      createdRanges: ranges(srv.created()),
      failed: [
        { line: 5, code: 'invalid_request', message: 'invalid name', status: 400 },
        { line: 8, code: 'invalid_request', message: 'name taken', status: 400 },
      ],
      unknown: [{ line: 7, code: 'network', status: 0 }],
      notSent: notSent.length,
      remaining: 2 + notSent.length,
      remainingFile: `${file}.remaining.ndjson`,
      remainingRanges: ranges(['P5', 'P8', ...notSent]),
    });
    expect(account.message).toMatch(/^stopped at record 5 of 12 \(line 5\), not created: invalid name/);
    // Every record once: created, failed, unknown or not sent.
    expect(srv.created().length + 2 + 1 + notSent.length).toBe(12);
    expect(namesIn(`${file}.remaining.ndjson`)).toEqual(['P5', 'P8', ...notSent]);
    expect(printedNames(r.stdout)).toEqual(inLineOrder(srv.created()));
  });

  it('for people: several failed and unknown at one stop, in a few lines', async () => {
    const srv = await petServer(decide());
    const { dir, file } = petInput(12);
    const r = await runMain(['pets', 'create', '--from-file', file], { env: env(srv, dir) });
    expect(r.code).toBe(6);
    const err = unwrapped(r.stderr);
    expect(err).toMatch(
      /^error: stopped at record 5 of 12 \(line 5\), not created: invalid name \(invalid_request, HTTP 400\)/,
    );
    expect(err).toContain(`created ${srv.created().length}: lines 1-4, 6`);
    expect(err).toContain('failed 2: lines 5, 8, not created');
    expect(err).toContain('unknown 1: line 7: the request may have reached the server');
    expect(err).toContain(`the ${12 - srv.created().length - 1} records not created are in ${file}.remaining.ndjson`);
  });

  it('at a signal, stdout read slowly: every pet created is printed, the last ones once it is read again', async () => {
    const srv = await petServer();
    const controller = new AbortController();
    // The bulk create waits half the grace (1 s here) for answers under way and for stdout,
    // then stops waiting; reading resumes later than that.
    const shutdown = new ShutdownRegistry(2000);
    const reading = gate();
    const { dir, file } = petInput(12);
    const run = runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: env(srv, dir),
      signal: controller.signal,
      shutdown,
      stdoutReadFrom: reading.promise,
    });
    // The first pet's line waits for the reader; the default 4 in flight are sent meanwhile.
    while (srv.created().length < 4) await new Promise((r) => setTimeout(r, 5));
    controller.abort('SIGINT');
    setTimeout(() => reading.open(), 1500);
    const r = await run;
    expect(r.code).toBe(130);
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({ code: 'interrupted', created: srv.created().length });
    expect(printedNames(r.stdout)).toEqual(srv.created());
    expect(srv.created()).toEqual(petNames(1, srv.created().length));
  });

  it('at a signal: the answers under way are awaited; those still out when the grace is over are unknown', async () => {
    const all = gate();
    const never = gate<PetAnswer>();
    let held = 0;
    const srv = await petServer(async ({ name }) => {
      if (!['P5', 'P6', 'P7', 'P8'].includes(name)) return 'create';
      if (++held === 4) all.open();
      await all.promise;
      // P5 and P6 answer as soon as the signal has come; P7 and P8 never do.
      if (name === 'P5' || name === 'P6') {
        await interrupted.promise;
        return 'create';
      }
      return never.promise;
    });
    const interrupted = gate();
    const controller = new AbortController();
    // The bulk create waits half the grace (1 s here) for answers under way.
    const shutdown = new ShutdownRegistry(2000);
    const { dir, file } = petInput(12);
    const run = runMain(['pets', 'create', '--from-file', file, '-o', 'ndjson'], {
      env: env(srv, dir),
      signal: controller.signal,
      shutdown,
    });
    await all.promise;
    controller.abort('SIGINT');
    interrupted.open();
    const r = await run;
    never.open('destroy');
    expect(r.code).toBe(130);
    expect(srv.created()).toEqual(expect.arrayContaining(petNames(1, 6)));
    expect(srv.created()).toHaveLength(6);
    expect(lastJson(r.stderr)).toMatchObject({
      code: 'interrupted',
      created: 6,
      createdRanges: [{ lines: [1, 6] }],
      failed: [],
      unknown: [
        { line: 7, code: 'interrupted' },
        { line: 8, code: 'interrupted' },
      ],
      notSent: 4,
      remaining: 4,
      remainingFile: `${file}.remaining.ndjson`,
    });
    expect(namesIn(`${file}.remaining.ndjson`)).toEqual(petNames(9, 12));
    expect(printedNames(r.stdout)).toEqual(petNames(1, 6));
  });
});

describe("the account's commands at 60, 80 and 120 columns", () => {
  /** stderr as a terminal shows it at the end: the progress line's drawings taken out. */
  // eslint-disable-next-line no-control-regex -- the progress line's escape sequences are what is taken out
  const screenOf = (stderr: string): string => stderr.replace(/\r[^\r\n]*?\x1b\[K/g, '');
  /** Lines wider than `width`, but for a word too long for any line, which stands alone. */
  const tooWide = (screen: string, width: number): string[] =>
    screen.split('\n').filter((l) => l.length > width && l.trim().includes(' '));
  /** The command that starts at the line matching `start`, continued by ` \\` lines, as a shell reads it. */
  function commandAt(screen: string, start: RegExp): string[] {
    const lines = screen.split('\n');
    const first = lines.findIndex((l) => start.test(l));
    expect(first, screen).toBeGreaterThanOrEqual(0);
    const last = lines.findIndex((l, i) => i >= first && !l.endsWith(' \\'));
    const pasted = lines
      .slice(first, last + 1)
      .join('\n')
      .replace(/^[^`]*`|`[^`]*$/g, '');
    return execFileSync('sh', ['-c', `petstore() { printf '%s\\n' "$@"; }\n${pasted}`], { encoding: 'utf8' })
      .split('\n')
      .slice(0, -1);
  }

  it.each([60, 80, 120])(
    '%i: the re-run line and the already-sent hint break at spaces and run when pasted',
    async (columns) => {
      const srv = await petServer(({ name, attempt }) =>
        name === 'P2' && attempt === 1 ? errorReply(503, 'unavailable', 'later') : 'create',
      );
      const dir = tempDir();
      const file = join(dir, 'big.ndjson');
      writeFileSync(file, petRecords(3));
      const remaining = `${file}.remaining.ndjson`;
      const width = Math.min(columns, 80);
      const opts = { env: env(srv, dir, { NO_COLOR: '1' }), tty: true, columns };
      const first = await runMain(
        ['pets', 'create', '--from-file', file, '--concurrency', '1', '--retries', '0'],
        opts,
      );
      expect(first.code).toBe(1);
      const account = screenOf(first.stderr);
      expect(tooWide(account, width)).toEqual([]);
      expect(commandAt(account, /^ +petstore /)).toEqual(['pets', 'create', '--from-file', remaining]);
      // Sent again: refused, naming the remaining file in a command that fits as well.
      const again = await runMain(['pets', 'create', '--from-file', file], opts);
      expect(again.code).toBe(2);
      const refusal = screenOf(again.stderr);
      expect(tooWide(refusal, width)).toEqual([]);
      const argv = commandAt(refusal, /`petstore /);
      expect(argv).toEqual(['pets', 'create', '--from-file', remaining]);
      // Run as pasted: the records not created are created, and the file petstore wrote removed.
      const rerun = await runMain(argv, opts);
      expect(rerun.code, rerun.stderr).toBe(0);
      expect(existsSync(remaining)).toBe(false);
      expect(srv.created()).toEqual(['P1', 'P2', 'P3']);
    },
  );
});

describe('--jq that fails on created pets: every pet created is reported on stdout', { timeout: 120_000 }, () => {
  /**
   * The ids stdout reports: a line the filter printed (an id), or the record of a pet the
   * filter failed on, printed as it is; with the names of the records printed so.
   */
  function reported(stdout: string): { ids: string[]; unfiltered: { id: string; name: string }[] } {
    const lines = stdout
      .trimEnd()
      .split('\n')
      .filter((l) => l !== '');
    const unfiltered = lines
      .filter((l) => l.startsWith('{'))
      .map((l) => ({ id: /"id":(-?\d+)/.exec(l)![1]!, name: (JSON.parse(l) as { name: string }).name }));
    return { ids: [...lines.filter((l) => !l.startsWith('{')), ...unfiltered.map((u) => u.id)], unfiltered };
  }

  /** The ids the sandbox in `dir` holds for pets named P1.., read back through the CLI. */
  async function sandboxIds(dir: string): Promise<string[]> {
    const r = await runMain(['--env', 'sandbox', 'pets', 'list', '--all', '-o', 'tsv'], {
      env: { PETSTORE_CONFIG_DIR: dir },
    });
    expect(r.code, r.stderr).toBe(0);
    return r.stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.split('\t'))
      .filter(([, name]) => /^P\d+$/.test(name ?? ''))
      .map(([id]) => id!);
  }

  const sorted = (ids: string[]): string[] => [...ids].sort((a, b) => Number(a) - Number(b));

  it('fails on every third id at --concurrency 32 (sandbox): each id created is on stdout, once; the run stops, exit 1 (jq)', async () => {
    const { dir, file } = petInput(100);
    const r = await runMain(
      [
        '--env',
        'sandbox',
        'pets',
        'create',
        '--from-file',
        file,
        '--concurrency',
        '32',
        '--jq',
        'if .id % 3 == 0 then error("x") else .id end',
      ],
      { env: { PETSTORE_CONFIG_DIR: dir } },
    );
    expect(r.code, r.stderr).toBe(1);
    const account = lastJson(r.stderr);
    expect(account).toMatchObject({ code: 'jq', status: 0, records: 100, failed: [], unknown: [] });
    expect(account.message).toMatch(/^stopped after record \d+ of 100: --jq: x;/);
    const { ids, unfiltered } = reported(r.stdout);
    // What the server holds, no more, no less: every id created is reported once.
    const held = await sandboxIds(dir);
    expect(sorted(ids)).toEqual(sorted(held));
    expect(held).toHaveLength(account.created as number);
    // The requests under way at the first failure were many, and each of their pets printed.
    expect(account.created as number).toBeGreaterThan(1);
    expect(unfiltered.length).toBeGreaterThan(0);
    for (const u of unfiltered) expect(BigInt(u.id) % 3n).toBe(0n);
    for (const id of ids.filter((i) => !unfiltered.some((u) => u.id === i))) expect(BigInt(id) % 3n).not.toBe(0n);
    // The records not sent are in the remaining file, so that a re-run sends them.
    expect(namesIn(`${file}.remaining.ndjson`)).toHaveLength(100 - (account.created as number));
  });

  it('a filter past its --timeout on one pet (pet server): that pet and the ones after it printed as they are, exit 1 (jq_timeout)', async () => {
    const srv = await petServer();
    const { dir, file } = petInput(6);
    const r = await runMain(
      [
        'pets',
        'create',
        '--from-file',
        file,
        '--concurrency',
        '1',
        '--timeout',
        '3',
        '--jq',
        'if .name == "P2" then last(range(1e12)) else .id end',
      ],
      { env: env(srv, dir) },
    );
    expect(r.code, r.stderr).toBe(1);
    expect(lastJson(r.stderr)).toMatchObject({ code: 'jq_timeout', status: 0 });
    const lines = r.stdout.trimEnd().split('\n');
    const created = srv.created();
    expect(created[0]).toBe('P1');
    // P1 through the filter; P2 (stopped) and every pet created after it as its record.
    expect(lines[0]).toMatch(/^\d+$/);
    expect(printedNames(lines.slice(1).join('\n'))).toEqual(inLineOrder(created).slice(1));
  });
});

describe('--concurrency refused', () => {
  it.each(['0', '33', '1.5', '-1', 'abc', '', '4x'])('--concurrency %j: exit 2, nothing sent', async (value) => {
    const srv = await petServer();
    const { dir, file } = petInput(3);
    const r = await runMain(['pets', 'create', '--from-file', file, '--concurrency', value], { env: env(srv, dir) });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain(
      `invalid --concurrency ${JSON.stringify(value)}: must be a whole number from 1 to 32 (requests in flight at once)`,
    );
    expect(srv.requests).toHaveLength(0);
  });

  it('without --from-file: exit 2, nothing sent', async () => {
    const srv = await petServer();
    const r = await runMain(['pets', 'create', '--name', 'Rex', '--category-id', '1', '--concurrency', '4'], {
      env: env(srv, tempDir()),
    });
    expect(r.code).toBe(2);
    expect(unwrapped(r.stderr)).toContain('--concurrency works with --from-file only');
    expect(srv.requests).toHaveLength(0);
  });
});
