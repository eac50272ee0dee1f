// Proves a refactor left petstore's user-visible surfaces byte-for-byte unchanged: dumps
// every surface of a built CLI into a directory, one file each, and compares two builds.
//
//   node scripts/surfaces.mjs dump --bin PATH/bin/petstore.js --out DIR
//   node scripts/surfaces.mjs compare --before PATH_A/bin/petstore.js [--after bin/petstore.js]
//
// `dump` writes into DIR (made if missing; refused when it holds anything but an earlier
// dump). `compare` dumps both builds into temporary directories and prints, per surface,
// `same NAME` or `DIFF NAME` and a unified diff (`diff -u`), then a summary line; it exits
// 0 when every surface is the same, 1 otherwise, 2 on a usage error or a failed dump.
// --after defaults to this clone's bin/petstore.js.
//
// The surfaces (files, named SURFACE.DETAIL...):
// - help.WORDS.FORM.WIDTH.txt: the help of the root (WORDS `root`), of every noun and every
//   verb, the tree read from the build's own `petstore help --json` (`commands[].path`).
//   FORM is `flag` (`petstore pets list --help`), `help` (`petstore help pets list`) and,
//   for the root and the nouns, `bare` (`petstore pets`: commander's help for a missing
//   word). WIDTH is `pipe` (stdout a pipe: the 80 columns help has off a terminal, and the
//   shim's fast path) and w060, w080, w120: stdout a terminal of that width.
// - help-json.json: `petstore help --json`; version.flag.txt, version.cmd.txt.
// - completion.SHELL.txt: `petstore completion SHELL` for each shell the build's
//   `completion` argument offers (help --json: bash, zsh, fish).
// - man.petstore.1: the built page, BIN/../dist/man/petstore.1 (no command prints it).
// - mcp.MODE.initialize.json, mcp.MODE.tools-list.json, mcp.MODE.resources-list.json:
//   `petstore --base-url http://127.0.0.1:9/v1 mcp [--allow-writes]` (MODE read-only,
//   allow-writes) spoken to in raw JSON-RPC over stdio; the results pretty-printed. It
//   starts without the network (nothing is sent before a tool call) given a key:
//   PETSTORE_API_KEY=x. Closing stdin ends it.
// A surface's file is the command's stdout as it is; when the command wrote to stderr or
// did not exit 0, a footer after a `----8<----` line says so, with the stderr text.
//
// Width: petstore wraps help at stdout's terminal width (process.stdout.columns, read only
// when stdout is a TTY; no COLUMNS variable), else at 80. So each width runs the command
// with stdout alone on a pseudo-terminal, made by a few lines of python3's `pty` module:
// window size set with TIOCSWINSZ (1000 rows, so help never reaches the pager, and
// PAGER=cat besides), the terminal put in raw mode so its bytes arrive untranslated (no
// \r\n), stdin /dev/null and stderr a pipe. On a terminal petstore may colour; whatever it
// writes is kept. `script` and tmux were passed over: they put stderr on the terminal too,
// translate newlines, and take the size only from a shell's `stty`.
//
// Every child runs with a fresh temporary HOME (and XDG_CONFIG_HOME, XDG_CACHE_HOME,
// XDG_DATA_HOME, XDG_STATE_HOME under it), an environment built from nothing but PATH,
// LANG=C.UTF-8, TZ=UTC, TERM=xterm-256color and PAGER=cat (NO_COLOR unset), in a process
// group of its own killed after TIMEOUT_MS.
//
// Normalised, being specific to a run or a build rather than the code: the child's
// temporary HOME (`<HOME>`) and the build's directory (`<BUILD>`, the bin's grandparent)
// wherever they appear in output, and the man page's date (its `.TH` line: the build's
// day, or SOURCE_DATE_EPOCH's). Nothing else is changed.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { parseArgs } from 'node:util';

const WIDTHS = [60, 80, 120];
const PTY_ROWS = 1000;
const TIMEOUT_MS = 30_000;
const JOBS = Math.max(2, Math.min(8, availableParallelism()));
const MARKER = '.surfaces-dump';
const FOOTER = '\n----8<----\n';
const MCP_BASE_URL = 'http://127.0.0.1:9/v1';
const MCP_PROTOCOL = '2025-11-25';

// Runs argv[4:] with stdout alone on a pseudo-terminal argv[1] columns wide, argv[2] rows
// high, in raw mode (bytes as written); copies what it wrote to this stdout and exits with
// its code (128 + N after signal N).
const PTY_HELPER = `
import fcntl, os, pty, struct, subprocess, sys, termios, tty
cols, rows = int(sys.argv[1]), int(sys.argv[2])
master, slave = pty.openpty()
fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
tty.setraw(slave)
child = subprocess.Popen(sys.argv[3:], stdin=subprocess.DEVNULL, stdout=slave, close_fds=True)
os.close(slave)
out = bytearray()
while True:
    try:
        data = os.read(master, 65536)
    except OSError:
        break
    if not data:
        break
    out += data
code = child.wait()
sys.stdout.buffer.write(bytes(out))
sys.stdout.flush()
sys.exit(code if code >= 0 else 128 - code)
`;

/** Parses the command line and runs `dump` or `compare`; a usage error exits 2. */
async function main(argv) {
  const [command, ...rest] = argv;
  const options = {
    bin: { type: 'string' },
    out: { type: 'string' },
    before: { type: 'string' },
    after: { type: 'string' },
  };
  let values;
  try {
    ({ values } = parseArgs({ args: rest, options, strict: true, allowPositionals: false }));
  } catch (err) {
    return usage(err.message);
  }
  if (command === 'dump' && values.bin !== undefined && values.out !== undefined) {
    const count = await dump(checkBin(values.bin), resolve(values.out));
    console.log(`${count} surfaces written to ${resolve(values.out)}`);
    return 0;
  }
  if (command === 'compare' && values.before !== undefined) {
    const after = values.after ?? join(import.meta.dirname, '..', 'bin', 'petstore.js');
    return compare(checkBin(values.before), checkBin(after));
  }
  return usage(command === undefined ? 'a command is required' : `cannot run \`${[command, ...rest].join(' ')}\``);
}

/** Prints the usage with `why`; returns exit code 2. */
function usage(why) {
  console.error(`surfaces: ${why}`);
  console.error('usage: node scripts/surfaces.mjs dump --bin PATH/bin/petstore.js --out DIR');
  console.error('       node scripts/surfaces.mjs compare --before PATH/bin/petstore.js [--after bin/petstore.js]');
  return 2;
}

/** The absolute path of a built bin/petstore.js; throws when there is none there. */
function checkBin(path) {
  const bin = resolve(path);
  if (!existsSync(bin)) throw new Error(`no built CLI at ${bin}`);
  return bin;
}

/**
 * Writes every surface of the build at `bin` into `out`, one file each; returns how many.
 * Runs JOBS children at a time: each writes its own file, so the order does not matter.
 */
async function dump(bin, out) {
  prepareOut(out);
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-surfaces-'));
  const runner = new Runner(bin, scratch);
  try {
    const tree = JSON.parse((await runner.run(['help', '--json'])).stdout.toString('utf8'));
    const runs = plannedRuns(tree);
    const files = new Map();
    await eachLimited(runs, JOBS, async (spec) => {
      files.set(spec.name, render(await runner.run(spec.argv, { columns: spec.columns })));
    });
    for (const allowWrites of [false, true]) {
      for (const [name, content] of await mcpSurfaces(runner, allowWrites)) files.set(name, content);
    }
    files.set('man.petstore.1', manPage(bin));
    for (const [name, content] of files) writeFileSync(join(out, name), content);
    writeFileSync(join(out, MARKER), `${bin}\n`);
    return files.size;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Makes `out` ready for a dump: created, or emptied when it holds an earlier dump (MARKER). */
function prepareOut(out) {
  mkdirSync(out, { recursive: true });
  const entries = readdirSync(out);
  if (entries.length === 0) return;
  if (!entries.includes(MARKER)) throw new Error(`${out} is not empty and holds no earlier dump: not writing there`);
  for (const entry of entries) rmSync(join(out, entry), { recursive: true, force: true });
}

/**
 * The runs whose output is a surface, from the build's `help --json` tree: help of every
 * command in each form and width, the JSON tree, the version, the completion scripts.
 */
function plannedRuns(tree) {
  const paths = [[], ...tree.commands.map((c) => c.path)];
  const nouns = new Set(tree.commands.filter((c) => c.subcommands.length > 0).map((c) => c.path.join(' ')));
  const runs = [];
  for (const words of paths) {
    const label = words.length === 0 ? 'root' : words.join('_');
    const forms = [
      ['flag', [...words, '--help']],
      ['help', ['help', ...words]],
    ];
    if (words.length === 0 || nouns.has(words.join(' '))) forms.push(['bare', words]);
    for (const [form, argv] of forms) {
      runs.push({ name: `help.${label}.${form}.pipe.txt`, argv });
      for (const columns of WIDTHS) {
        runs.push({ name: `help.${label}.${form}.w${String(columns).padStart(3, '0')}.txt`, argv, columns });
      }
    }
  }
  runs.push({ name: 'help-json.json', argv: ['help', '--json'] });
  runs.push({ name: 'version.flag.txt', argv: ['--version'] }, { name: 'version.cmd.txt', argv: ['version'] });
  const completion = tree.commands.find((c) => c.path.join(' ') === 'completion');
  for (const shell of completion?.arguments[0]?.values ?? []) {
    runs.push({ name: `completion.${shell}.txt`, argv: ['completion', shell] });
  }
  return runs;
}

/** A run's surface: its stdout, then `footer`. */
function render(result) {
  return Buffer.concat([result.stdout, footer(result)]);
}

/** Empty when a run exited 0 and wrote nothing to stderr; else its status and stderr. */
function footer({ stderr, code, timedOut }) {
  if (stderr.length === 0 && code === 0 && !timedOut) return Buffer.alloc(0);
  const status = timedOut ? `timed out after ${TIMEOUT_MS} ms` : `exit ${code}`;
  return Buffer.concat([Buffer.from(`${FOOTER}${status}\nstderr:\n`), stderr]);
}

/** The built man page beside `bin`, its `.TH` date (the build's day) normalised. */
function manPage(bin) {
  const file = join(dirname(bin), '..', 'dist', 'man', 'petstore.1');
  if (!existsSync(file)) return `no man page at ../dist/man/petstore.1\n`;
  return readFileSync(file, 'utf8').replace(/^(\.TH\s+\S+\s+\S+\s+)"\d{4}-\d{2}-\d{2}"/m, '$1"<DATE>"');
}

/** Runs `work` on each of `items`, at most `limit` at once. */
async function eachLimited(items, limit, work) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Runs one build's CLI in a sealed environment: a fresh HOME per child, a fixed set of
 * variables, a timeout; output normalised for what is specific to the run (the HOME) or
 * the build (its directory).
 */
class Runner {
  /** `bin`: the build's bin/petstore.js; `scratch`: where the children's homes go. */
  constructor(bin, scratch) {
    this.bin = bin;
    this.buildRoot = dirname(dirname(bin));
    this.scratch = scratch;
    this.homes = 0;
    this.python = pythonPath();
  }

  /**
   * Runs `petstore ARGV` and resolves with its normalised stdout and stderr, exit code and
   * whether it timed out. `columns`: stdout a terminal of that width (PTY_HELPER), else a
   * pipe. `session(child)`: drives a child whose stdin is a pipe (MCP), else /dev/null.
   */
  async run(argv, { columns, session } = {}) {
    const home = join(this.scratch, `home-${++this.homes}`);
    mkdirSync(home);
    const node = [process.execPath, this.bin, ...argv];
    const [file, args] =
      columns === undefined
        ? [node[0], node.slice(1)]
        : [this.python, ['-c', PTY_HELPER, String(columns), String(PTY_ROWS), ...node]];
    try {
      const result = await spawnBounded(file, args, childEnv(home), session);
      const clean = (buf) => this.normalise(buf, home);
      return { ...result, stdout: clean(result.stdout), stderr: clean(result.stderr) };
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }

  /** `buf` with the child's HOME and the build's directory replaced by placeholders. */
  normalise(buf, home) {
    const text = buf.toString('utf8');
    if (!text.includes(home) && !text.includes(this.buildRoot)) return buf;
    return Buffer.from(text.replaceAll(home, '<HOME>').replaceAll(this.buildRoot, '<BUILD>'));
  }
}

/** The real python3 (not a version manager's shim, which costs a start-up at every run). */
function pythonPath() {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
  if (r.status !== 0 || r.stdout.trim() === '') throw new Error('python3 is needed for the terminal widths');
  return r.stdout.trim();
}

/** The whole environment of a child: fixed values and a HOME (and XDG dirs) of its own. */
function childEnv(home) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    TERM: 'xterm-256color',
    PAGER: 'cat',
    PETSTORE_API_KEY: 'x',
  };
}

/**
 * Spawns `file ARGS` in a process group of its own, collects stdout and stderr, and kills
 * the whole group (a pty helper's child too) after TIMEOUT_MS, so nothing hangs.
 */
function spawnBounded(file, args, env, session) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, { env, detached: true, stdio: [session ? 'pipe' : 'ignore', 'pipe', 'pipe'] });
    const out = [];
    const err = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, TIMEOUT_MS);
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => err.push(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const status = code ?? 128 + (signalNumber(signal) ?? 0);
      resolvePromise({ stdout: Buffer.concat(out), stderr: Buffer.concat(err), code: status, timedOut });
    });
    if (session) session(child);
  });
}

/** Sends SIGKILL to the process group `pid` leads; a group already gone is no error. */
function killGroup(pid) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left to end
  }
}

/** The number of a signal named `name` (SIGTERM: 15), for a `128 + N` exit code. */
function signalNumber(name) {
  return { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGABRT: 6, SIGKILL: 9, SIGSEGV: 11, SIGPIPE: 13, SIGTERM: 15 }[name];
}

/**
 * The MCP surfaces of `petstore mcp` (with `--allow-writes` when `allowWrites`): the
 * initialize result, then tools/list and resources/list, pretty-printed, as [name, text].
 */
async function mcpSurfaces(runner, allowWrites) {
  const mode = allowWrites ? 'allow-writes' : 'read-only';
  const answers = {};
  const argv = ['--base-url', MCP_BASE_URL, 'mcp', ...(allowWrites ? ['--allow-writes'] : [])];
  const result = await runner.run(argv, { session: (child) => mcpSession(child, answers) });
  // Any other line the server wrote, what it said on stderr, its exit code: in footers.
  const stray = answers.stray === undefined ? '' : `${FOOTER}other stdout:\n${answers.stray}`;
  const rest = Buffer.concat([Buffer.from(stray), footer(result)]);
  const pretty = (answer) => `${JSON.stringify(answer ?? { missing: 'no answer' }, null, 2)}\n`;
  return [
    [`mcp.${mode}.initialize.json`, Buffer.concat([Buffer.from(pretty(answers[1])), rest])],
    [`mcp.${mode}.tools-list.json`, pretty(answers[2])],
    [`mcp.${mode}.resources-list.json`, pretty(answers[3])],
  ];
}

/**
 * Speaks to a `petstore mcp` child in newline-delimited JSON-RPC: initialize, then
 * notifications/initialized, tools/list and resources/list, each sent once the answer
 * before it came; then ends stdin. Fills `answers` by request id (result, or the error
 * object) and `answers.stray` with any other line.
 */
function mcpSession(child, answers) {
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const steps = [
    () =>
      send({
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: MCP_PROTOCOL,
          capabilities: {},
          clientInfo: { name: 'petstore-surfaces', version: '1.0.0' },
        },
      }),
    () => {
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/list', params: {} });
    },
    () => send({ id: 3, method: 'resources/list', params: {} }),
    () => child.stdin.end(),
  ];
  child.stdin.on('error', () => undefined); // a server that died early: its exit code says so
  const decoder = new StringDecoder('utf8');
  let pending = '';
  child.stdout.on('data', (chunk) => {
    pending += decoder.write(chunk);
    let newline;
    while ((newline = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      const message = parseLine(line);
      if (message?.id !== undefined && message.id in steps && !(message.id in answers)) {
        answers[message.id] = message.error === undefined ? message.result : { error: message.error };
        steps[message.id]();
      } else if (line !== '') {
        answers.stray = `${answers.stray ?? ''}${line}\n`;
      }
    }
  });
  steps[0]();
}

/** `line` parsed as JSON, or undefined when it is not JSON. */
function parseLine(line) {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/**
 * Dumps both builds into temporary directories and prints, per surface, `same NAME` or
 * `DIFF NAME` and a unified diff; then a summary. Returns 0 when all are the same, else 1.
 */
async function compare(before, after) {
  const scratch = mkdtempSync(join(tmpdir(), 'petstore-compare-'));
  try {
    const dirs = { before: join(scratch, 'before'), after: join(scratch, 'after') };
    await dump(before, dirs.before);
    await dump(after, dirs.after);
    const names = (dir) => readdirSync(dir).filter((n) => !n.startsWith('.'));
    const all = [...new Set([...names(dirs.before), ...names(dirs.after)])].sort();
    const counts = { same: 0, differ: 0, onlyBefore: 0, onlyAfter: 0 };
    for (const name of all) {
      const a = join(dirs.before, name);
      const b = join(dirs.after, name);
      if (existsSync(a) && existsSync(b) && readFileSync(a).equals(readFileSync(b))) {
        counts.same++;
        console.log(`same  ${name}`);
        continue;
      }
      if (!existsSync(b)) counts.onlyBefore++;
      else if (!existsSync(a)) counts.onlyAfter++;
      else counts.differ++;
      console.log(`DIFF  ${name}`);
      process.stdout.write(unifiedDiff(a, b, name));
    }
    const changed = all.length - counts.same;
    console.log(
      `${all.length} surfaces: ${counts.same} same, ${changed} different ` +
        `(${counts.differ} changed, ${counts.onlyBefore} only before, ${counts.onlyAfter} only after)`,
    );
    console.log(`before: ${before}\nafter:  ${after}`);
    return changed === 0 ? 0 : 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `diff -u` of two surface files (a missing one as empty), labelled before/NAME and after/NAME. */
function unifiedDiff(a, b, name) {
  const side = (file) => (existsSync(file) ? file : '/dev/null');
  const r = spawnSync('diff', ['-u', '--label', `before/${name}`, '--label', `after/${name}`, side(a), side(b)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status === 1) return r.stdout.endsWith('\n') ? r.stdout : `${r.stdout}\n`;
  return `  (diff failed: ${r.error?.message ?? r.stderr.trim()})\n`;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    console.error(`surfaces: ${err.message}`);
    process.exitCode = 2;
  },
);
