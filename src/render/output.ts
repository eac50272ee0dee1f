/**
 * The one place records reach stdout, through `Io` alone (the renderers themselves are
 * pure), in the output the run asked for (cli-contract.md "Output"): pets in a format, the
 * fields `--fields` keeps, the `--jq` filter, and for `pets list --sort` an order (one pet, a
 * list, or a stream of records: pages of `pets list --all`, results of bulk create, whose
 * lines are written as records arrive); and the answers of `petstore api`, as the server
 * sent them or through `--jq`.
 */
import { PET_FIELDS, type PetField } from '../client/constants.js';
import type { Pet } from '../client/schemas.js';
import { CliError, ExitCode } from '../base/errors.js';
import type { Io } from '../io/io.js';
import { stringifyJson } from '../base/json.js';
import { escapeForTerminal, escapeJsonText, escapeRawForTerminal } from '../text/escape.js';
import { arrayInner, parseBody, renderBody, renderHead, type Answer } from './answer.js';
import type { JqFilter, JqOutcome } from './jq.js';
import {
  pickFields,
  renderCsvHeader,
  renderJson,
  renderJsonArrayEnd,
  renderJsonArrayItem,
  renderNdjson,
  renderPetCsv,
  renderPetTsv,
  type RenderMode,
} from './pets.js';
import { countOf } from '../text/count.js';

/**
 * How a run prints records: where, and through which jq filter; for pets also in which
 * format and which fields (`petstore api` prints its answers as they are, or through `--jq`).
 */
export interface RecordOutput {
  io: Io;
  mode: RenderMode;
  /** `--fields`: the fields printed, in order; undefined for whole records (and the four columns). */
  fields: readonly PetField[] | undefined;
  /** `--jq`, started (its expression checked by `check` or its first run); undefined without it. */
  jq: JqFilter | undefined;
  /** Prints, on stderr, a line jq wrote with `debug` or `stderr`. */
  jqMessage: (line: string) => void;
}

/** The most JSON `--jq` is given as one array (`pets list --all`), in bytes of UTF-8. */
export const JQ_MAX_INPUT_BYTES = 32 * 1024 * 1024;
/**
 * The most pets `--jq` is given as one array: jq has 256 MiB, and holds about 300 000
 * pets, whatever their size (measured with `.`, `map(.name)` and `sort_by(.name)`).
 */
export const JQ_MAX_INPUT_PETS = 200_000;

/** Lines of `text` (it ends with a newline). */
function lineCount(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Writes a rendered table: through the pager when it is longer than the terminal (only on
 * a terminal; Io decides), else like any other output. The pager may have been started
 * already, as soon as the rows held were more than a screenful (`FormatSink.push`).
 * @throws OutputError as `Io.out` (EPIPE: stdout's reader went away; ENOSPC, EIO).
 */
async function writeTable(io: Io, text: string): Promise<void> {
  if (io.wouldPage(lineCount(text))) await io.startPager();
  await io.out(text);
}

/**
 * Renders pets as the table (loaded only here), no wider than stdout's terminal; piped
 * (`-o table | cat`) it has no width to fit, so no name is shortened.
 */
async function renderTable(out: RecordOutput, pets: readonly Pet[]): Promise<string> {
  const { renderPetTable } = await import('./table.js');
  return renderPetTable(pets, out.io.colorOut, out.io.stdoutColumns, out.fields);
}

/** One line of `--jq` output: a string raw (escaped on a terminal), any other value as JSON. */
function jqLine(value: string, terminal: boolean): string {
  if (!value.startsWith('"')) return `${escapeJsonText(value)}\n`;
  const text = JSON.parse(value) as string;
  return `${terminal ? escapeRawForTerminal(text) : text}\n`;
}

/**
 * Prints what a run of the filter produced: its messages on stderr, its values on stdout
 * (gh's rule: one per line, strings raw, escaped on a terminal). `out` is a run's RecordOutput,
 * or the part of it `petstore api --jq` uses.
 * @throws CliError `jq` (exit 1) with jq's message when the filter stopped with an error,
 * after what it printed before; OutputError as `Io.out`.
 */
async function writeJqOutcome(out: Pick<RecordOutput, 'io' | 'jqMessage'>, outcome: JqOutcome): Promise<void> {
  for (const m of outcome.messages) out.jqMessage(m);
  if (outcome.values.length > 0) {
    await out.io.out(outcome.values.map((v) => jqLine(v, out.io.stdoutIsTTY)).join(''));
  }
  if (outcome.error !== undefined) {
    const { jqRuntimeError } = await import('./jq.js');
    throw jqRuntimeError(outcome.error);
  }
}

/** The compact JSON text of a record as printed (its `--fields` only), for jq. */
function jqInput(out: RecordOutput, pet: Pet): string {
  return stringifyJson(pickFields(pet, out.fields));
}

/** Writes a list of pets; an empty one prints `[]` in json, the header in csv, nothing otherwise. */
async function writePets(out: RecordOutput, pets: readonly Pet[]): Promise<void> {
  const stream = new RecordStream(out);
  await stream.push(pets);
  await stream.end();
}

/** Writes one pet: an object in json (what `--jq` sees too), one line in ndjson/tsv/csv, a one-row table. */
export async function writePet(out: RecordOutput, pet: Pet): Promise<void> {
  if (out.mode !== 'json') return writePets(out, [pet]);
  if (out.jq === undefined) return out.io.out(renderJson(pickFields(pet, out.fields)));
  await writeJqOutcome(out, await out.jq.apply(jqInput(out, pet)));
}

/** Where records go: printed at once, or held for the end. */
interface Sink {
  push(records: readonly Pet[]): Promise<void>;
  end(): Promise<void>;
}

/** Records in a format, without jq: lines at once, a JSON array element by element, the table at the end. */
class FormatSink implements Sink {
  private readonly held: Pet[] = [];
  private count = 0;

  constructor(private readonly out: RecordOutput) {}

  async push(records: readonly Pet[]): Promise<void> {
    const { out } = this;
    const before = this.count;
    this.count += records.length;
    if (records.length === 0) return;
    const fields = out.fields ?? PET_FIELDS;
    switch (out.mode) {
      case 'json':
        return out.io.out(
          records.map((r, i) => renderJsonArrayItem(pickFields(r, out.fields), before + i === 0)).join(''),
        );
      case 'ndjson':
        return out.io.out(records.map((r) => renderNdjson(pickFields(r, out.fields))).join(''));
      case 'tsv':
        return out.io.out(records.map((r) => renderPetTsv(r, fields)).join(''));
      case 'csv': {
        const rows = records.map((r) => renderPetCsv(r, fields, out.io.stdoutIsTTY)).join('');
        return out.io.out((before === 0 ? renderCsvHeader(fields) : '') + rows);
      }
      case 'table':
        this.held.push(...records);
        // More than a screenful (the header too): the pager starts now, so that a signal
        // before the end finds it running, ends its input and waits for the person.
        if (out.io.wouldPage(this.held.length + 1)) await out.io.startPager();
    }
  }

  async end(): Promise<void> {
    const { out } = this;
    if (out.mode === 'json') await out.io.out(renderJsonArrayEnd(this.count));
    else if (out.mode === 'csv' && this.count === 0) await out.io.out(renderCsvHeader(out.fields ?? PET_FIELDS));
    else if (out.mode === 'table' && this.held.length > 0) await writeTable(out.io, await renderTable(out, this.held));
    this.held.length = 0;
  }
}

/** `--jq` once per record: each batch of records in one call, printed as it comes. */
class JqEachSink implements Sink {
  constructor(
    private readonly out: RecordOutput,
    private readonly jq: JqFilter,
  ) {}

  async push(records: readonly Pet[]): Promise<void> {
    if (records.length === 0) return;
    const text = `[${records.map((r) => jqInput(this.out, r)).join(',')}]`;
    await writeJqOutcome(this.out, await this.jq.applyEach(text));
  }

  async end(): Promise<void> {
    // Everything was printed as it came.
  }
}

/**
 * `--jq` over one array of every record (`pets list --all`): held until the end, up to
 * JQ_MAX_INPUT_BYTES and JQ_MAX_INPUT_PETS; past either, the walk stops with an error.
 */
class JqWholeSink implements Sink {
  private readonly held: { pet: Pet; text: string }[] = [];
  private bytes = 2;
  private refused = false;

  constructor(
    private readonly out: RecordOutput,
    private readonly jq: JqFilter,
    private readonly compare: ((a: Pet, b: Pet) => number) | undefined,
  ) {}

  push(records: readonly Pet[]): Promise<void> {
    for (const pet of records) {
      const text = jqInput(this.out, pet);
      this.bytes += Buffer.byteLength(text) + 1;
      this.held.push({ pet, text });
    }
    if (this.bytes > JQ_MAX_INPUT_BYTES || this.held.length > JQ_MAX_INPUT_PETS) {
      this.refused = true;
      return Promise.reject(tooLargeForJq(this.held.length, this.bytes));
    }
    return Promise.resolve();
  }

  async end(): Promise<void> {
    if (this.refused) return;
    const { compare } = this;
    if (compare !== undefined) this.held.sort((a, b) => compare(a.pet, b.pet));
    const text = `[${this.held.map((h) => h.text).join(',')}]`;
    this.held.length = 0;
    await writeJqOutcome(this.out, await this.jq.apply(text));
  }
}

/** The error of a list too large for one jq array (exit 1, code `jq_input_too_large`). */
function tooLargeForJq(pets: number, bytes: number): CliError {
  const mib = (n: number): string => `${(n / 1024 / 1024).toFixed(0)} MiB`;
  const over =
    pets > JQ_MAX_INPUT_PETS
      ? `more than ${countOf(JQ_MAX_INPUT_PETS, 'pet')}`
      : `more than ${mib(JQ_MAX_INPUT_BYTES)} of JSON (${mib(bytes)} so far)`;
  return new CliError(`the list is too large for --jq as one array: ${over}; nothing was printed`, {
    exitCode: ExitCode.failure,
    code: 'jq_input_too_large',
    hint: 'Run the filter once per pet with --output ndjson --jq, or narrow the list with --status.',
  });
}

/** Holds every record, and at the end hands them, in order, to the sink it wraps. */
class SortingSink implements Sink {
  private readonly held: Pet[] = [];

  constructor(
    private readonly inner: Sink,
    private readonly compare: (a: Pet, b: Pet) => number,
  ) {}

  push(records: readonly Pet[]): Promise<void> {
    this.held.push(...records);
    return Promise.resolve();
  }

  async end(): Promise<void> {
    // Array.prototype.sort is stable: pets that compare equal keep the server's order.
    const sorted = this.held.sort(this.compare);
    // In slices, so that a per-record filter gets batches, never the whole list at once.
    for (let i = 0; i < sorted.length; i += 1000) await this.inner.push(sorted.slice(i, i + 1000));
    this.held.length = 0;
    await this.inner.end();
  }
}

/** Options of a RecordStream. */
export interface RecordStreamOptions {
  /** Orders the records (`pets list --sort`): every record is held until `end`. */
  compare?: ((a: Pet, b: Pet) => number) | undefined;
  /** Runs `--jq` once per record in every mode (`pets create --from-file`). */
  jqPerRecord?: boolean;
}

/**
 * Prints records as they come: lines for ndjson, tsv and csv at once, `json` one array
 * element by element (closed by `end`), and the TTY table (column widths need every row)
 * all at `end`. `--jq` runs per batch of records with ndjson (or `jqPerRecord`), and
 * otherwise once, at `end`, over the array of every record; `compare` holds every record
 * until `end`.
 */
export class RecordStream {
  private readonly sink: Sink;
  private count = 0;

  constructor(out: RecordOutput, options: RecordStreamOptions = {}) {
    const { compare } = options;
    const { jq } = out;
    const each = out.mode === 'ndjson' || options.jqPerRecord === true;
    if (jq !== undefined && !each) this.sink = new JqWholeSink(out, jq, compare);
    else {
      const inner = jq !== undefined ? new JqEachSink(out, jq) : new FormatSink(out);
      this.sink = compare === undefined ? inner : new SortingSink(inner, compare);
    }
  }

  /** Number of records pushed so far. */
  get size(): number {
    return this.count;
  }

  /** Adds records: printed at once, or held for `end` (table, `--sort`, `--jq` over a whole list). */
  async push(records: readonly Pet[]): Promise<void> {
    this.count += records.length;
    await this.sink.push(records);
  }

  /**
   * Closes the JSON array (`[]` when empty), prints what was held, or runs `--jq` over the
   * whole list. Called on success and on failure alike, so the records handled before a
   * failure are never lost and the JSON stays well-formed.
   */
  async end(): Promise<void> {
    await this.sink.end();
  }
}

/**
 * Writes records that are not pets (`pets watch`'s events, whose pets were cut to
 * `--fields` already): one NDJSON line each (int64 exact), or through `--jq` once per
 * record, the values printed as `--jq` prints them; nothing for none.
 * @throws CliError `jq` (exit 1) when the filter stops with an error; OutputError as `Io.out`.
 */
export async function writeRecords(out: RecordOutput, records: readonly unknown[]): Promise<void> {
  if (records.length === 0) return;
  if (out.jq === undefined) return out.io.out(records.map((r) => renderNdjson(r)).join(''));
  await writeJqOutcome(out, await out.jq.applyEach(`[${records.map((r) => stringifyJson(r)).join(',')}]`));
}

/**
 * Writes one record as `--output ndjson` prints it, outside the run's format and `--jq`: one
 * compact JSON line (a bulk create's pet that the filter failed on: its id must reach stdout).
 * @throws OutputError as `Io.out`.
 */
export function writeRecordLine(io: Io, record: unknown): Promise<void> {
  return io.out(renderNdjson(record));
}

/**
 * What prints the answers of one `petstore api` run: one answer, or the pages of
 * `--paginate`, whose JSON arrays print as one array, never as documents one after another.
 * The body as it is (`exactPrinter`), or through `--jq` (`jqPrinter`): the one place the
 * output is chosen.
 */
export interface AnswerPrinter {
  /** Prints one answer whole (`-i` head included when asked). */
  answer(res: Answer): Promise<void>;
  /** Adds the elements of one page of `--paginate`; `items` are the page's JSON array. */
  page(res: Answer, items: unknown[]): Promise<void>;
  /**
   * Closes what `page` opened (the array), on success and on failure alike; `complete`
   * says whether every page was fetched.
   */
  end(complete: boolean): Promise<void>;
}

/** What `petstore api` prints through: stdout, and the `--jq` filter (answers have no format or fields). */
export type AnswerOutput = Pick<RecordOutput, 'io' | 'jq' | 'jqMessage'>;

/** The printer of `api`'s answers (`-i`: `include` the head): through `--jq` when one is given. */
export function answerPrinter(out: AnswerOutput, include: boolean): AnswerPrinter {
  return out.jq === undefined ? exactPrinter(out.io, include) : jqPrinter(out, out.jq, include);
}

/** The printer of the body as it is (`renderBody`); pages' elements joined into one array. */
function exactPrinter(io: Io, include: boolean): AnswerPrinter {
  let count = 0;
  return {
    answer: async (res) => {
      if (include) await io.out(renderHead(res, io.stdoutIsTTY));
      await io.out(renderBody(res.body, io.stdoutIsTTY));
    },
    page: async (res, items) => {
      if (items.length === 0) return;
      if (io.stdoutIsTTY) {
        await io.out(items.map((item, i) => renderJsonArrayItem(item, count + i === 0)).join(''));
      } else {
        // The elements' own bytes, between the page's outer brackets: exact, whatever the
        // server's spacing and numbers.
        await io.out(`${count === 0 ? '[' : ','}${arrayInner(res.body)}`);
      }
      count += items.length;
    },
    end: async () => {
      // Incomplete too: the array is closed so stdout parses; the exit code tells the rest.
      await io.out(io.stdoutIsTTY ? renderJsonArrayEnd(count) : count === 0 ? '[]\n' : ']\n');
    },
  };
}

/**
 * The printer of `--jq` (gh api's rule): the filter runs on a JSON answer of less than 400,
 * fed the body's own text (int64 exact), its values printed one per line, strings raw; an
 * answer of 400 or more prints as it is (the error is the exit code's to tell); `-i` prints
 * the head first. With `--paginate` it runs once, at the end, on one array of every page's
 * elements, and not at all when a page failed: a filter such as `length` would print a
 * count that looks whole.
 * @throws CliError `jq` (exit 1) for a body that is not JSON or a filter that stops with an
 * error; `jq_input_too_large` (exit 1) past JQ_MAX_INPUT_BYTES of pages.
 */
function jqPrinter(out: AnswerOutput, jq: JqFilter, include: boolean): AnswerPrinter {
  const { io } = out;
  const inners: string[] = [];
  let bytes = 2;
  return {
    answer: async (res) => {
      // What is printed without a run of the filter waits for jq's verdict on it: a refused
      // expression prints nothing (a read's answer may come before the verdict).
      if (include || res.status >= 400 || res.body.length === 0) await jq.check();
      if (include) await io.out(renderHead(res, io.stdoutIsTTY));
      if (res.status >= 400) return io.out(renderBody(res.body, io.stdoutIsTTY));
      if (res.body.length === 0) return;
      if (parseBody(res.body) === undefined) throw notJson(res);
      await writeJqOutcome(out, await jq.apply(res.body.toString('utf8').replace(/^\uFEFF/, '')));
    },
    page: (res) => {
      const inner = arrayInner(res.body);
      bytes += Buffer.byteLength(inner) + 1;
      if (bytes > JQ_MAX_INPUT_BYTES) return Promise.reject(pagesTooLarge());
      if (inner !== '') inners.push(inner);
      return Promise.resolve();
    },
    end: async (complete) => {
      const text = `[${inners.join(',')}]`;
      inners.length = 0;
      if (complete) await writeJqOutcome(out, await jq.apply(text));
    },
  };
}

function notJson(res: Answer): CliError {
  const type = res.headers['content-type'];
  return new CliError(
    `--jq: the answer is not JSON${typeof type === 'string' ? ` (content-type: ${escapeForTerminal(type)})` : ''}; nothing was printed`,
    { exitCode: ExitCode.failure, code: 'jq', hint: 'Leave out --jq to see the answer as it is.' },
  );
}

function pagesTooLarge(): CliError {
  const mib = JQ_MAX_INPUT_BYTES / 1024 / 1024;
  return new CliError(
    `the pages are too large for --jq as one array: more than ${mib} MiB of JSON; nothing was printed`,
    {
      exitCode: ExitCode.failure,
      code: 'jq_input_too_large',
      hint: 'Filter the pages one at a time (leave out --paginate and follow the Link header), or ask for less.',
    },
  );
}
