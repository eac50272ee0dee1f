/**
 * The bulk create's main promise, against real processes killed with -9 (cli-contract.md
 * "Bulk create": "Write-ahead: before a request leaves, the run record holds its intent ...
 * The record survives the process's death"): a 1,000-record run is killed with SIGKILL at
 * 30 points spread over it — before its first request, after every 34 or so POSTs, during
 * its final write, and some of them while it is stopped (SIGSTOP, a disk that does not
 * answer) — and each time the documented next commands are run until nothing is left to
 * send. The server counts the POSTs of each record: every record is POSTed exactly once,
 * or is reported unknown (and POSTed at most once), and at most `--concurrency` records
 * are unknown per kill. With the default `--concurrency 4`, with 16, and with a server
 * that holds each answer 20 ms.
 *
 * Nothing here waits for a fixed time: a kill is triggered by the event it is placed at
 * (the server's Nth POST, the run's lock or record appearing in its state folder), and the
 * limits are for a hang only.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, watch, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyOf } from '../../src/commands/pets/create/run-record.js';
import { lastJson, remoteEnv } from '../helpers/harness.js';
import { holdLock, ownerFile, type LockHolder } from '../helpers/lock-holder.js';
import { CLI_ARGV, runCli, type CliResult } from '../helpers/run-cli.js';
import { canMountSmallDisks, onSmallDisks } from '../helpers/small-disk.js';
import { spawnCli, type Steered } from '../helpers/spawn-cli.js';
import { removeTempDirs, tempDir } from '../helpers/temp-config.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const KEY = 'pk_test_exactly_once_0123456789';
/** Records of each run's input. */
const RECORDS = 1000;
/** Kill points per configuration. */
const POINTS = 30;
/** A limit for a hang only: a run of 1,000 records on a loaded machine takes seconds. */
const HANG_MS = 300_000;

/** A server that creates every pet it receives, counting the POSTs of each name. */
interface CountingServer extends TestServer {
  /** POSTs received of the pet named `name`. */
  posts(name: string): number;
  /** The `Idempotency-Key` of each POST of the pet named `name`, in order. */
  keys(name: string): string[];
  /** The id given to the pet named `name` at its last POST. */
  idOf(name: string): number | undefined;
  /** Calls `then` once the POSTs of names starting with `prefix` reach `n` (at that very POST). */
  onPost(prefix: string, n: number, then: () => void): void;
  /** Each answer is held this long (ms) after the POST was counted. */
  holdMs: number;
}

async function countingServer(): Promise<CountingServer> {
  const counts = new Map<string, number>();
  const keys = new Map<string, string[]>();
  const ids = new Map<string, number>();
  const byPrefix = new Map<string, number>();
  const triggers: { prefix: string; n: number; then: () => void }[] = [];
  let next = 1000;
  const srv = await startTestServer();
  const counting: CountingServer = {
    ...srv,
    holdMs: 0,
    posts: (name) => counts.get(name) ?? 0,
    keys: (name) => keys.get(name) ?? [],
    idOf: (name) => ids.get(name),
    onPost: (prefix, n, then) => triggers.push({ prefix, n, then }),
  };
  srv.handle(async (req) => {
    // Requests are not kept: 90,000 of them would hold the test's memory.
    srv.requests.length = 0;
    if (req.method !== 'POST') return { status: 200, body: [] };
    const pet = JSON.parse(req.body) as { name: string; categoryId: number };
    counts.set(pet.name, (counts.get(pet.name) ?? 0) + 1);
    keys.set(pet.name, [...(keys.get(pet.name) ?? []), String(req.headers['idempotency-key'])]);
    const prefix = pet.name.slice(0, pet.name.lastIndexOf('-') + 1);
    const seen = (byPrefix.get(prefix) ?? 0) + 1;
    byPrefix.set(prefix, seen);
    for (const t of triggers.filter((x) => x.prefix === prefix && x.n === seen)) t.then();
    const id = next++;
    ids.set(pet.name, id);
    if (counting.holdMs > 0) await new Promise((r) => setTimeout(r, counting.holdMs));
    return { status: 201, raw: `{"id":${id},"name":${JSON.stringify(pet.name)},"categoryId":${pet.categoryId}}` };
  });
  return counting;
}

let srv: CountingServer;
beforeAll(async () => {
  srv = await countingServer();
});
afterAll(async () => {
  await srv.close();
  removeTempDirs();
});

/** NDJSON of `n` records named `<prefix><line>`. */
function records(prefix: string, n: number, pad = 0): string {
  const tail = 'x'.repeat(pad);
  return Array.from({ length: n }, (_, i) => `{"name":"${prefix}${i + 1}${tail}","categoryId":${i + 1}}\n`).join('');
}

/** Resolves when an entry whose name matches `pattern` appears in `dir` (inotify: at once). */
function appears(dir: string, pattern: RegExp): { seen: Promise<void>; close: () => void } {
  let close = (): void => undefined;
  const seen = new Promise<void>((resolve) => {
    const watcher = watch(dir, (_event, name) => {
      if (name !== null && pattern.test(name)) resolve();
    });
    close = () => watcher.close();
  });
  return { seen, close };
}

/** Where a kill lands: at an event of the run, with or without a stop first. */
type KillPoint = { at: 'lock' } | { at: 'post'; n: number } | { at: 'record' };

/** The 30 points: the lock (before the first request), 28 POST counts spread over the run, the final write. */
function killPoints(): KillPoint[] {
  const points: KillPoint[] = [{ at: 'lock' }];
  for (let i = 1; i < POINTS - 1; i++) points.push({ at: 'post', n: Math.round((i * RECORDS) / (POINTS - 1)) });
  points.push({ at: 'record' });
  return points;
}

/** One round's setup: its input, state folder, environment and the command. */
interface Round {
  prefix: string;
  file: string;
  state: string;
  env: Record<string, string>;
  args: string[];
  /** The name of the input's run record in the state folder. */
  record: string;
}

function setUp(label: string, concurrency: number): Round {
  const dir = tempDir();
  const state = join(dir, 'state');
  mkdirSync(state, { mode: 0o700 });
  const prefix = `${label}-`;
  const file = join(dir, 'pets.ndjson');
  const text = records(prefix, RECORDS);
  writeFileSync(file, text);
  const sha = createHash('sha256').update(text).digest('hex');
  const record = `${keyOf({ environment: 'production', where: srv.baseUrl }, sha)}.json`;
  const env = remoteEnv(srv.baseUrl, KEY, { PETSTORE_CONFIG_DIR: dir, PETSTORE_STATE_DIR: state });
  const args = ['pets', 'create', '--from-file', file, '--concurrency', String(concurrency), '-o', 'ndjson'];
  // Connections kept between requests: a round sends 1,000 records in about a second; the
  // journal works the same whatever the connections.
  env.PETSTORE_BULK_CONNECTIONS = 'keep-alive';
  return { prefix, file, state, env, args, record };
}

/**
 * Starts the run and kills it at `point`; with `stop`, it is stopped first (SIGSTOP), a
 * second run of the same input is refused meanwhile (the stopped run still holds the lock:
 * a live holder, however slow, is never robbed), and then it is killed.
 */
async function killedAt(round: Round, point: KillPoint, stop: boolean): Promise<void> {
  const victim: Steered = spawnCli(round.args, { env: round.env, timeoutMs: HANG_MS });
  const run = { ended: false };
  void victim.exited.then(() => (run.ended = true));
  let fired!: () => void;
  const reached = new Promise<void>((resolve) => (fired = resolve));
  const hit = (): void => {
    victim.child.kill(stop ? 'SIGSTOP' : 'SIGKILL');
    fired();
  };
  let watching: { seen: Promise<void>; close: () => void } | undefined;
  if (point.at === 'post') srv.onPost(round.prefix, point.n, hit);
  else {
    watching = appears(round.state, point.at === 'lock' ? /\.json\.lock$/ : new RegExp(`^${round.record}$`));
    void watching.seen.then(hit);
  }
  // The run may end by itself first (its final write done before the watch saw it).
  await Promise.race([reached, victim.exited]);
  watching?.close();
  if (stop) {
    if (!run.ended) {
      const meanwhile = await runCli(round.args, { env: round.env });
      expect(meanwhile.code, meanwhile.stderr).toBe(2);
      expect(lastJson(meanwhile.stderr)).toMatchObject({ code: 'already_sent' });
      expect(lastJson(meanwhile.stderr).message).toMatch(/is being sent to production now/);
      victim.child.kill('SIGKILL');
    }
  }
  await victim.exited;
}

/**
 * The documented next commands after a kill, until nothing is left to send: the same
 * command again (it sends everything when nothing had been sent; otherwise it is refused
 * with the killed run's account and writes the remaining file), then the remaining file.
 * @returns the lines it reported unknown.
 */
async function resume(round: Round, concurrency: number): Promise<Set<number>> {
  const unknown = new Set<number>();
  // Killed once its record said every record was created: nothing is left to send.
  const recordPath = join(round.state, round.record);
  if (
    existsSync(recordPath) &&
    (JSON.parse(readFileSync(recordPath, 'utf8')) as { state: string }).state === 'complete'
  )
    return unknown;
  const again: CliResult = await runCli(round.args, { env: round.env, timeoutMs: HANG_MS });
  if (again.code === 0) return unknown;
  expect(again.code, again.stderr).toBe(2);
  const refusal = lastJson(again.stderr) as ReturnType<typeof lastJson> & {
    unknown: { line: number }[];
    remainingFile: string | null;
    remainingRanges: { lines: [number, number] }[];
  };
  expect(refusal.code).toBe('already_sent');
  for (const u of refusal.unknown) unknown.add(u.line);
  expect(unknown.size, 'unknown after one kill').toBeLessThanOrEqual(concurrency);
  if (refusal.remainingRanges.length > 0) {
    expect(refusal.remainingFile, again.stderr).toEqual(expect.any(String));
    const rest = await runCli(
      [
        'pets',
        'create',
        '--from-file',
        String(refusal.remainingFile),
        '--concurrency',
        String(concurrency),
        '-o',
        'ndjson',
      ],
      { env: round.env, timeoutMs: HANG_MS },
    );
    expect(rest.code, rest.stderr).toBe(0);
  }
  return unknown;
}

/** Every record POSTed exactly once, or reported unknown and POSTed at most once. */
function expectExactlyOnce(round: Round, unknown: Set<number>, where: string): void {
  const wrong: string[] = [];
  for (let line = 1; line <= RECORDS; line++) {
    const posts = srv.posts(`${round.prefix}${line}`);
    if (posts === 1 || (posts === 0 && unknown.has(line))) continue;
    wrong.push(`line ${line}: ${posts} POSTs${unknown.has(line) ? ' (reported unknown)' : ''}`);
  }
  expect(wrong, where).toEqual([]);
}

describe('a bulk create killed with -9 at any instant, then the documented next commands', () => {
  // A server that holds its answers leaves the processors idle: three rounds go at once.
  it.each([
    { name: 'the default --concurrency 4', concurrency: 4, holdMs: 0, together: 1 },
    { name: '--concurrency 16', concurrency: 16, holdMs: 0, together: 1 },
    { name: 'a server that holds each answer 20 ms (--concurrency 16)', concurrency: 16, holdMs: 20, together: 3 },
  ])(
    '$name: every record POSTed exactly once, or reported unknown and POSTed at most once',
    async ({ concurrency, holdMs, together }) => {
      srv.holdMs = holdMs;
      const points = killPoints();
      const round = async (i: number): Promise<void> => {
        const point = points[i] as KillPoint;
        // Every sixth kill lands on a stopped process.
        const stop = i % 6 === 3;
        const setup = setUp(`c${concurrency}h${holdMs}p${i}`, concurrency);
        await killedAt(setup, point, stop);
        const unknown = await resume(setup, concurrency);
        expectExactlyOnce(setup, unknown, `kill point ${i} (${JSON.stringify(point)}${stop ? ', stopped first' : ''})`);
      };
      for (let i = 0; i < points.length; i += together) {
        await Promise.all(Array.from({ length: Math.min(together, points.length - i) }, (_, k) => round(i + k)));
      }
    },
    3 * HANG_MS,
  );
});

describe('after a kill', () => {
  it(
    '--force sends every record again with new Idempotency-Keys',
    async () => {
      srv.holdMs = 0;
      const round = setUp('forced', 4);
      await killedAt(round, { at: 'post', n: 100 }, false);
      const forced = await runCli([...round.args, '--force'], { env: round.env, timeoutMs: HANG_MS });
      expect(forced.code, forced.stderr).toBe(0);
      expect(lastJson(forced.stderr).message).toMatch(
        /and that run ended before it saved its account \(killed, or its disk full\): .*--force sends every record again/,
      );
      for (let line = 1; line <= RECORDS; line++) {
        const keys = srv.keys(`${round.prefix}${line}`);
        expect(new Set(keys).size, `line ${line}: ${keys.join(' ')}`).toBe(keys.length);
      }
      // The killed run's keys were its own run's: the record index after its run's identity.
      expect(srv.keys(`${round.prefix}1`)[0]).toMatch(/^[0-9a-f]{32}-0$/);
    },
    HANG_MS,
  );

  it(
    'ended by a second Ctrl-C while stdout is not read: every created id is on stdout or in the account, and the next run names them',
    async () => {
      srv.holdMs = 0;
      const round = setUp('forcedend', 4);
      // Long names, 2 KB a line: the pipe and what the test's stream reads ahead take some
      // tens of them, and the pets created after those wait to be printed (how many depends on
      // those buffers: test/commands/pets/create.test.ts names them for a reader that reads
      // nothing, in-process).
      const pad = 'x'.repeat(2000);
      const text = records(round.prefix, 300, pad.length);
      writeFileSync(round.file, text);
      const sha = createHash('sha256').update(text).digest('hex');
      const record = `${keyOf({ environment: 'production', where: srv.baseUrl }, sha)}.json`;
      const victim = spawnCli(round.args, { env: round.env, timeoutMs: HANG_MS, stallStdoutAfterLines: 2 });
      await victim.until(() => srv.posts(`${round.prefix}60${pad}`) === 1, HANG_MS);
      // Ctrl-C twice: the second ends the run at once, whatever the first still waits for. Two
      // signals pending at once are one to the kernel: the second is sent once the first is taken.
      victim.child.kill('SIGINT');
      await victim.until(() => !sigintPending(victim.child.pid ?? 0), HANG_MS);
      victim.child.kill('SIGINT');
      const { code } = await victim.exited;
      expect(code).toBe(130);
      // What reached stdout, read now; and what the account says was not printed.
      victim.child.stdout?.resume();
      const printed = new Set(
        victim
          .stdout()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => (JSON.parse(l) as { id: number }).id),
      );
      const account = lastJson(victim.stderr()) as ReturnType<typeof lastJson> & {
        idsNotPrinted: { id: string }[];
        unknown: { line: number }[];
      };
      const listed = new Set(account.idsNotPrinted.map((p) => Number(p.id)));
      // Every pet the server made for a record whose answer the run had: a request still out
      // at the second signal is unknown (the server may have made it; its id never came).
      const unknown = new Set(account.unknown.map((u) => u.line));
      expect(unknown.size).toBeLessThanOrEqual(4);
      const created: number[] = [];
      for (let line = 1; line <= 300; line++) {
        const id = srv.idOf(`${round.prefix}${line}${pad}`);
        if (id !== undefined && !unknown.has(line)) created.push(id);
      }
      expect(created.filter((id) => !printed.has(id) && !listed.has(id))).toEqual([]);
      // The next run folds what the ended run left and names the same ids.
      expect(existsSync(join(round.state, record.replace(/\.json$/, '.journal')))).toBe(true);
      const next = await runCli(round.args, { env: round.env, timeoutMs: HANG_MS });
      expect(next.code).toBe(2);
      const refusal = lastJson(next.stderr) as ReturnType<typeof lastJson> & { idsNotPrinted: { id: string }[] };
      expect(refusal.message).toContain('was ended by force (a second signal) before it finished');
      expect(new Set(refusal.idsNotPrinted.map((p) => Number(p.id)))).toEqual(listed);
    },
    HANG_MS,
  );
});

describe('a state folder on a disk that fills while records are sent', () => {
  it.skipIf(!canMountSmallDisks())(
    'sending stops before a request it cannot write ahead, exit 1 code state; freed, the next commands send each record once',
    async () => {
      srv.holdMs = 0;
      const round = setUp('fulldisk', 4);
      const dir = join(round.state, '..');
      const run = (args: string, out: string): string =>
        `${CLI_ARGV.map((a) => `'${a}'`).join(' ')} ${args} -o ndjson > '${dir}/${out}.out' 2> '${dir}/${out}.err'; echo "${out}=$?"`;
      // 512 KiB, of which a filler takes all but 16: the journal fills after a few hundred records.
      const script = [
        // A fresh tmpfs is mode 1777, which no state folder may be.
        `chmod 700 '${round.state}'`,
        `head -c 507904 /dev/zero > '${round.state}/filler'`,
        run(`pets create --from-file '${round.file}'`, 'first'),
        run(`pets create --from-file '${round.file}'`, 'full'),
        `rm '${round.state}/filler'`,
        run(`pets create --from-file '${round.file}'`, 'freed'),
        // The remaining file the refusal names.
        `rest=$(sed -n 's/.*"remainingFile":"\\([^"]*\\)".*/\\1/p' '${dir}/freed.err')`,
        run(`pets create --from-file "$rest"`, 'rest'),
      ].join('\n');
      const r = await onSmallDisks([{ path: round.state, kib: 512 }], script, round.env, HANG_MS);
      const errs = ['first', 'full', 'freed', 'rest']
        .map((n) => readFileSync(join(dir, `${n}.err`), 'utf8'))
        .join('\n');
      expect(r.stdout, errs).toBe('first=1\nfull=2\nfreed=2\nrest=0\n');
      const err = (name: string) => lastJson(readFileSync(join(dir, `${name}.err`), 'utf8'));
      const first = err('first') as ReturnType<typeof lastJson> & { unknown: unknown[]; remainingFile: string | null };
      expect(first.code).toBe('state');
      expect(first.message).toContain('cannot write the journal of this run');
      expect(first.message).toContain('no space left');
      // Nothing could be written there while it was full: nothing sent.
      expect(err('full').code).toBe('config');
      // The journal folded once there was room: the account of the run that stopped.
      const freed = err('freed') as ReturnType<typeof lastJson> & { unknown: { line: number }[] };
      expect(freed.code).toBe('already_sent');
      const unknown = new Set(freed.unknown.map((u) => u.line));
      expect(unknown.size).toBeLessThanOrEqual(4);
      expectExactlyOnce(round, unknown, 'after the disk filled');
    },
    HANG_MS,
  );
});

/** Whether process `pid` has a SIGINT pending, not yet taken by its handler (Linux: /proc/PID/status). */
function sigintPending(pid: number): boolean {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const pending = ['SigPnd', 'ShdPnd'].map((f) =>
    BigInt(`0x${new RegExp(`^${f}:\\s*([0-9a-f]+)`, 'm').exec(status)?.[1] ?? '0'}`),
  );
  // SIGINT is signal 2: bit 1 of the masks.
  return pending.some((mask) => (mask & 2n) !== 0n);
}

/** Stalls each takeover of a dead run's lock until all the re-runs have judged it (test/helpers/takeover-delay.cjs). */
const TAKEOVER_HOOK = fileURLToPath(new URL('../helpers/takeover-delay.cjs', import.meta.url));
/** Re-runs started at once after each kill, and rounds. */
const RERUNS = 16;
const ROUNDS = 30;

/**
 * Runs `create` and kills it with -9 while its first records wait for the sandbox's lock
 * (`dataHolder` holds it): they were about to leave, so they are unknown; nothing was
 * created.
 */
async function killedWhileWaiting(create: string[], env: Record<string, string>, dataLock: string): Promise<void> {
  const victim = spawnCli(create, { env, timeoutMs: HANG_MS });
  await someoneWaits(dataLock);
  victim.child.kill('SIGKILL');
  await victim.exited;
}

/** Resolves once a process waits for the lock at `lockPath`: waiters mark its owner file (mtime 0). */
async function someoneWaits(lockPath: string): Promise<void> {
  const limit = Date.now() + HANG_MS;
  for (;;) {
    const owner = ownerFile(lockPath);
    if (owner !== undefined && statSync(owner).mtimeMs === 0) return;
    if (Date.now() > limit) throw new Error(`nobody waited for ${lockPath}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe(`${RERUNS} re-runs at once after a run killed with -9, all taking its lock over together`, () => {
  it(`the killed run is folded once (one remaining file) and every re-run is refused; each record is created once, in ${ROUNDS} of ${ROUNDS} rounds`, async () => {
    const dir = tempDir();
    const base = { PETSTORE_CONFIG_DIR: dir };
    // The sandbox seeded; it honours Idempotency-Key, so the records left unknown are sent again with their keys.
    expect((await runCli(['--env', 'sandbox', 'pets', 'list'], { env: base })).code).toBe(0);
    const names: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const state = join(dir, `state-${round}`);
      const barrier = join(dir, `barrier-${round}`);
      mkdirSync(barrier);
      const input = join(dir, `round-${round}.ndjson`);
      writeFileSync(input, records(`race${round}-`, 20));
      const create = ['--env', 'sandbox', 'pets', 'create', '--from-file', input, '-o', 'ndjson'];
      const env = { ...base, PETSTORE_STATE_DIR: state };
      const data: LockHolder = await holdLock(join(dir, 'sandbox.json'));
      await killedWhileWaiting(create, env, join(dir, 'sandbox.json.lock'));
      // Each re-run stalls in the takeover until all have judged the dead run's lock.
      const hooked = {
        ...env,
        NODE_OPTIONS: `--require ${TAKEOVER_HOOK}`,
        TAKEOVER_BARRIER_DIR: barrier,
        TAKEOVER_BARRIER_COUNT: String(RERUNS),
        TAKEOVER_DELAY_MS: String(HANG_MS / 4),
      };
      const reruns = await Promise.all(
        Array.from({ length: RERUNS }, () => runCli(create, { env: hooked, timeoutMs: HANG_MS })),
      );
      data.child.stdin.end();
      await data.exited;
      // Several judged the dead run's lock at once (the race this is about).
      expect(readdirSync(barrier).length, `round ${round}: takers`).toBeGreaterThanOrEqual(2);
      // Each is refused: sending now (another holds the lock), or with the killed run's
      // account (the one that folded it, and any that came after it let go).
      const refusals = reruns.map((r) => ({ code: r.code, error: lastJson(r.stderr) }));
      expect(
        refusals.map((r) => r.code),
        `round ${round}`,
      ).toEqual(Array.from({ length: RERUNS }, () => 2));
      expect(refusals.filter((r) => r.error.code !== 'already_sent')).toEqual([]);
      const folded = refusals.filter((r) =>
        /and that run ended before it saved its account \(killed, or its disk full\)/.test(r.error.message),
      );
      expect(folded.length, `round ${round}`).toBeGreaterThanOrEqual(1);
      // Folded once: one remaining file, and the lock let go.
      const left = readdirSync(dir).filter((n) => n.startsWith(`round-${round}.ndjson.remaining`));
      expect(left, `round ${round}`).toEqual([`round-${round}.ndjson.remaining.ndjson`]);
      expect(readdirSync(state).filter((n) => n.includes('.lock'))).toEqual([]);
      // The documented next commands: the remaining file, then the unknown records with their keys.
      const account = folded[0]?.error as ReturnType<typeof lastJson> & { remainingFile: string };
      const rest = await runCli(['--env', 'sandbox', 'pets', 'create', '--from-file', account.remainingFile], {
        env,
        timeoutMs: HANG_MS,
      });
      expect(rest.code, rest.stderr).toBe(0);
      const resent = await runCli([...create, '--resend-unknown'], { env, timeoutMs: HANG_MS });
      expect(resent.code, resent.stderr).toBe(0);
      names.push(...Array.from({ length: 20 }, (_, i) => `race${round}-${i + 1}`));
    }
    const list = await runCli(['--env', 'sandbox', 'pets', 'list', '--all', '--output', 'json'], { env: base });
    const created = (JSON.parse(list.stdout) as { name: string }[])
      .map((p) => p.name)
      .filter((n) => n.startsWith('race'));
    expect(created.sort()).toEqual(names.sort());
  }, 900_000);
});
