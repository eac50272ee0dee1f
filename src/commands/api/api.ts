/**
 * `petstore api [METHOD] PATH [-X M] [-f k=v] [-F k=v] [--input F] [-H h] [-i] [--paginate] [--dry-run[=curl]]`:
 * the declaration (flags, help, typed options) of the raw request in gh api's shape
 * (cli-contract.md "Commands"). The run is in `run.ts`, loaded only when it runs.
 */
import { Command, Option } from '@commander-js/extra-typings';
import { MAX_PAGES_DEFAULT } from '../../client/constants.js';
import { withTraits } from '../traits.js';
import { checkApiPath } from '../../client/paths.js';
import { UsageError } from '../../base/errors.js';
import { dryRunForm, parseDryRun, type DryRunForm } from '../../operations/dry-run.js';
import type { Runner } from '../runner.js';
import {
  ARGUMENT_METHODS,
  argumentMethod,
  parseHeader,
  parseMethod,
  parseRawField,
  parseTypedField,
  type ApiField,
} from './request.js';
import { parseMaxPages, quote } from '../../base/flag-values.js';
import { shellQuote } from '../../base/suggest.js';
import type { ApiOptions } from './run.js';

/** Collects a repeatable flag's values in order. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

/** Declares `api`. */
export function newApiCommand(f: Runner) {
  return (
    withTraits(new Command('api'), {
      recordFlags: ['--jq'],
      writes: 'by-method',
      environment: 'request',
      // The server's body as it is; `runApi` refuses any other `--output`.
      outputs: ['json'],
    })
      .description("send any request to the API with the environment's key, and print the answer as it is")
      .summary("send any request to the API with the environment's key")
      .usage('[flags] [METHOD] PATH')
      // One variadic argument: commander cannot take an optional METHOD before a required
      // PATH, and a short term keeps the root help's columns as wide as they were.
      .argument(
        '<request...>',
        "[METHOD] PATH: the method, one of GET HEAD POST PUT PATCH DELETE OPTIONS in any case (others with -X; default: GET, or POST with fields or --input), and the path, relative to the base URL's path (pets?limit=5 and /pets/7 both go under /v1)",
      )
      .addOption(
        new Option(
          '-X, --method <method>',
          'the HTTP method, any RFC 9110 method (the METHOD argument takes GET HEAD POST PUT PATCH DELETE OPTIONS only)',
        ),
      )
      .addOption(new Option('-f, --raw-field <field>', 'a string field, key=value (repeatable)').argParser(collect))
      .addOption(
        new Option(
          '-F, --field <field>',
          'a typed field, key=value: true, false, null and int64 integers as JSON, @file or @- for a file or stdin (repeatable)',
        ).argParser(collect),
      )
      .addOption(
        new Option('--input <file>', 'the request body, as it is (- = stdin); fields then go to the query string'),
      )
      .addOption(
        new Option(
          '-H, --header <header>',
          "an extra request header, 'Name: value' (repeatable; not Authorization)",
        ).argParser(collect),
      )
      .addOption(new Option('-i, --include', 'print the status line and response headers before the body, on stdout'))
      .addOption(
        new Option('--paginate', 'follow Link rel="next" on the same origin; pages that are arrays print as one array'),
      )
      .addOption(
        new Option(
          '--max-pages <n>',
          'with --paginate: stop with exit 1 after N pages, 1-10000 (default: 1000)',
        ).argParser((v) => parseMaxPages(v)),
      )
      .addOption(
        new Option(
          '--dry-run [=curl]',
          'send nothing: print the request (method, URL, headers, body) as JSON, the key as $PETSTORE_API_KEY; --dry-run=curl prints a curl command that reads the key from $PETSTORE_API_KEY',
        ).argParser((v) => parseDryRun(v)),
      )
      .addHelpText(
        'after',
        `
Fields go to the query string of a GET and to a JSON body otherwise. The body is printed as it is: piped, byte for byte; on a terminal, JSON is indented and server text escaped. An answer of 400 or more prints its body too, and exits 6 (400), 4 (401), 5 (404) or 1. --jq filters a JSON answer (with --paginate, one array of every page); an answer of 400 or more prints unfiltered.

Examples:
  $ petstore --env sandbox api 'pets?limit=3'
  $ petstore api -i /pets/7
  $ petstore api pets -F categoryId=9223372036854775807 -f name=Rex
  $ petstore api POST pets --input new-pet.json
  $ petstore api pets --paginate > every-pet.json
  $ petstore api pets --paginate --jq '.[] | select(.status == "sold") | .name'

--dry-run takes its value only after = (api --dry-run pets requests pets). It reads the fields and --input, sends nothing and asks nothing; it needs a key source, as the real run does, but never prints the key nor runs apiKeyCommand to read it. The curl command of --dry-run=curl (curl 7.55 or later) is for a shell where PETSTORE_API_KEY holds the key (a note gives the export line that sets it when it is not set); printf, a shell builtin, hands the key to curl on stdin, out of every process's arguments. With --env sandbox it is refused: the embedded sandbox stops when petstore does (run \`petstore sandbox serve\` instead).`,
      )
      .action((words, flags) =>
        f.run(async (ctx) => {
          const options = toApiOptions(words, flags, (w) => ctx.suggest(w));
          const { runApi } = await import('./run.js');
          return runApi(ctx, options);
        }),
      )
  );
}

/** The flags of `api` as commander parsed them. */
type ApiFlags = ReturnType<ReturnType<typeof newApiCommand>['opts']>;

/**
 * Turns the arguments and flags into options, refusing (exit 2, nothing read or sent) what
 * gh api would refuse and what would send the key elsewhere: one argument is PATH, two are
 * METHOD (one of `ARGUMENT_METHODS`, any case) and PATH, two whose first is no METHOD are
 * refused with the command meant (`notAMethod`), more are refused; METHOD and a different `-X`; malformed fields and headers; an
 * `Authorization` header; an absolute URL or `//host`; `--dry-run` with `--paginate` or `-i`. The method defaults to GET, or POST
 * once a field or `--input` is given (gh's rule).
 * @throws UsageError for each of these.
 */
function toApiOptions(
  words: string[],
  flags: ApiFlags,
  suggest: (words: string) => string = (w) => `petstore ${w}`,
): ApiOptions {
  if (words.length > 2) {
    throw new UsageError(
      `too many arguments (${words.map((w) => JSON.stringify(w)).join(' ')}): petstore api takes [METHOD] PATH`,
      'Fields go in -f key=value and -F key=value, headers in -H.',
    );
  }
  const [first = '', second] = words;
  const flagMethod = flags.method === undefined ? undefined : parseMethod(flags.method, '-X');
  const argMethod = second === undefined ? undefined : argumentMethod(first);
  if (second !== undefined && argMethod === undefined) {
    throw notAMethod(first, second, { flagMethod, dryRun: flags.dryRun }, suggest);
  }
  const path = second ?? first;
  checkApiPath(path);
  if (argMethod !== undefined && flagMethod !== undefined && argMethod !== flagMethod) {
    throw new UsageError(`METHOD ${argMethod} and -X ${flagMethod} ask for two different methods`, 'Give one of them.');
  }
  const fields = toFields(flags.rawField ?? [], flags.field ?? []);
  const input = flags.input;
  if (input === '') throw new UsageError('invalid --input "": give a file path, or - for stdin');
  const method = argMethod ?? flagMethod ?? (fields.length > 0 || input !== undefined ? 'POST' : 'GET');
  const paginate = flags.paginate === true;
  const dryRun = dryRunForm(flags.dryRun);
  checkCombinations(
    { method, input, paginate, include: flags.include === true, maxPages: flags.maxPages, fields, dryRun },
    suggest,
  );
  const headers: Record<string, string> = {};
  for (const raw of flags.header ?? []) {
    const [name, value] = parseHeader(raw);
    // A repeated header is one list (RFC 9110 §5.3).
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return {
    method,
    path,
    fields,
    input,
    headers,
    include: flags.include === true,
    paginate,
    maxPages: flags.maxPages ?? MAX_PAGES_DEFAULT,
    dryRun,
  };
}

/**
 * The refusal of two words whose first is no METHOD (cli-contract.md "Commands": a first
 * word that is no method is the path), nothing sent: `api pets --dry-run curl` is the
 * curl form asked for with a space, which `--dry-run` takes only after `=`; a word in
 * capitals is a method only `-X` may give (`api -X PURGE pets`); any other pair reads as
 * a path in two words (`api pets 7`: did you mean `api GET pets/7`?).
 */
function notAMethod(
  first: string,
  second: string,
  o: { flagMethod: string | undefined; dryRun: DryRunForm | true | undefined },
  suggest: (words: string) => string,
): UsageError {
  const words = [first, second];
  if (o.dryRun !== undefined && dryRunForm(o.dryRun) === 'json' && words.includes('curl')) {
    const path = words.find((w) => w !== 'curl') ?? first;
    return new UsageError(
      '--dry-run takes its value only after =: `--dry-run curl` is the flag, then a second word of the request',
      `For the curl command: \`${suggest(`api ${shellQuote(path)} --dry-run=curl`)}\``,
    );
  }
  if (/^[A-Z][A-Z-]*$/.test(first)) {
    return new UsageError(
      `${quote(first)} is not one of the methods the METHOD argument takes (${ARGUMENT_METHODS.join(' ')}, in any case); another method needs -X`,
      `Did you mean \`${suggest(`api -X ${first} ${shellQuote(second)}`)}\`?`,
    );
  }
  const method = o.flagMethod === undefined ? 'GET' : (argumentMethod(o.flagMethod) ?? `-X ${o.flagMethod}`);
  const path = `${first.replace(/\/+$/, '')}/${second.replace(/^\/+/, '')}`;
  return new UsageError(
    `${quote(first)} is not an HTTP method, and api takes one PATH: METHOD is one of ${ARGUMENT_METHODS.join(' ')} (any case), another method needs -X`,
    `Did you mean \`${suggest(`api ${method} ${shellQuote(path)}`)}\`?`,
  );
}

/** Parses `-f` then `-F` fields (gh's order). @throws UsageError for a key given twice. */
function toFields(raw: string[], typed: string[]): ApiField[] {
  const fields = [...raw.map(parseRawField), ...typed.map(parseTypedField)];
  const seen = new Set<string>();
  for (const field of fields) {
    if (seen.has(field.key)) throw new UsageError(`the field ${JSON.stringify(field.key)} is given twice`);
    seen.add(field.key);
  }
  return fields;
}

/** Flags that do not go together. @throws UsageError naming them. */
function checkCombinations(
  o: {
    method: string;
    input: string | undefined;
    paginate: boolean;
    include: boolean;
    maxPages: number | undefined;
    fields: ApiField[];
    dryRun: DryRunForm | undefined;
  },
  suggest: (words: string) => string,
): void {
  // A dry run shows one request; what --paginate and -i would add comes from answers.
  if (o.dryRun !== undefined && (o.paginate || o.include)) {
    throw new UsageError(
      `--dry-run and ${o.paginate ? '--paginate' : '-i'} do not go together: a dry run prints the first request and receives no answer`,
    );
  }
  if (o.input !== undefined && (o.method === 'GET' || o.method === 'HEAD')) {
    throw new UsageError(
      `--input gives a body, and a ${o.method} request has none`,
      'Send it with -X POST, PUT or PATCH.',
    );
  }
  if (o.paginate && o.method !== 'GET') {
    throw new UsageError(`--paginate follows the pages of a GET, not of a ${o.method}`);
  }
  if (o.paginate && o.include) {
    throw new UsageError(
      '--paginate and -i do not go together: the pages print as one array, with no room for their headers',
      `--verbose shows every page's headers on stderr: \`${suggest('api pets --paginate --verbose')}\``,
    );
  }
  if (o.maxPages !== undefined && !o.paginate) {
    throw new UsageError('--max-pages needs --paginate: it caps how many pages --paginate fetches');
  }
  const fromStdin = [
    ...(o.input === '-' ? ['--input -'] : []),
    ...o.fields.filter((f) => f.readFrom === '-').map((f) => `-F ${f.key}=@-`),
  ];
  if (fromStdin.length > 1) throw new UsageError(`${fromStdin.join(' and ')} would both read stdin`);
}
