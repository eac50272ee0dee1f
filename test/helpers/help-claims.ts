/**
 * The claims `help --json` makes about what the parser takes, turned into command lines to
 * try: each enum value and list item accepted, each integer range edge accepted and one
 * past it refused (for a decimal range, a value below and one above), int64's edges
 * likewise, each value form accepted as written, each `--output` format a command lists
 * accepted and each other refused, and a required-together group with one member missing
 * refused. Derived from the document alone, so a new command or flag is covered unasked;
 * `checkClaims` runs them and names each claim the parser contradicts.
 */

/** The parts of a flag a claim is made of. */
interface FlagClaimDoc {
  long: string;
  description: string;
  type: string;
  values: string[] | null;
  range: { min: number; max: number } | null;
  default: number | boolean | null;
  value: { optional: true; forms: string[] } | null;
  conflicts: string[];
}

/** The parts of a command a claim is made of. */
interface CommandClaimDoc {
  path: string[];
  arguments: { name: string; required: boolean; values: string[] | null; type: string }[];
  flags: FlagClaimDoc[];
  globalFlags: string[];
  output: string[];
  recordFlags: string[];
  requiredTogether: string[][];
  subcommands: string[];
}

/** The parts of the document the claims come from. */
export interface ClaimDoc {
  globalFlags: FlagClaimDoc[];
  commands: CommandClaimDoc[];
}

/** One command line to try, and what the document says the parser does with it. */
export interface Claim {
  /** What is claimed, for a failure's message (`pets list --limit 100 accepted`). */
  what: string;
  argv: string[];
  expect: 'accepted' | 'refused';
  /** Run with stdout a terminal (`--output table`: a table is for terminals). */
  tty?: boolean;
}

/** How a run ended: its exit code, and the code of its JSON error when it printed one. */
export interface Outcome {
  code: number;
  errorCode: string | undefined;
  /** The run neither ended nor showed that it got past its flags in time. */
  undecided?: boolean;
}

/** Values for flags and arguments whose type says nothing to try, by long name (a file must exist). */
export type Samples = Readonly<Record<string, string>>;

const INT64_MIN = '-9223372036854775808';
const INT64_MAX = '9223372036854775807';
/** One past each int64 edge. */
const INT64_PAST = ['-9223372036854775809', '9223372036854775808'];

/** A value of `type` that the parser takes: the first enum value, the smallest in range, ... */
function sampleOf(flag: FlagClaimDoc | CommandClaimDoc['arguments'][number], samples: Samples, name: string): string {
  if (samples[name] !== undefined) return samples[name];
  if (flag.type === 'int64') return '1';
  if (flag.values !== null && flag.values.length > 0) return flag.values[0]!;
  if ('range' in flag && flag.range !== null) return String(flag.range.min);
  // An environment's name, a setting's value, a path for `api`: production serves them all.
  return 'production';
}

/**
 * The flags a flag needs before it is taken, from its description's `with --FLAG:` (the
 * words help uses for such a flag), with their values.
 */
function prerequisites(cmd: CommandClaimDoc, flag: FlagClaimDoc): FlagClaimDoc[] {
  const needed = /^with (--[a-z-]+)[:,]/.exec(flag.description)?.[1];
  const other = cmd.flags.find((f) => f.long === needed);
  return other === undefined ? [] : [other];
}

/** The words giving `flag` a sample value (none for a flag without one). */
function withSample(flag: FlagClaimDoc, samples: Samples): string[] {
  return flag.type === 'boolean' || flag.value !== null ? [flag.long] : [flag.long, sampleOf(flag, samples, flag.long)];
}

/**
 * The command line every claim of `cmd` adds to: its words, its required arguments, its
 * required-together groups and the flags `extra` needs, without the flags those conflict
 * with, and `--yes` (a write then asks nothing).
 */
function baseOf(cmd: CommandClaimDoc, samples: Samples, extra: FlagClaimDoc[] = []): string[] {
  const args = cmd.arguments.filter((a) => a.required).map((a) => sampleOf(a, samples, a.name));
  const conflicting = new Set(extra.flatMap((f) => f.conflicts));
  const together = cmd.requiredTogether
    .flat()
    .filter((long) => !conflicting.has(long))
    .flatMap((long) => {
      const flag = cmd.flags.find((f) => f.long === long);
      return flag === undefined ? [long] : withSample(flag, samples);
    });
  return [...cmd.path, ...args, ...together, ...extra.flatMap((f) => withSample(f, samples)), '--yes'];
}

/** Numbers past a range: one below and one above (for an integer range, one past each edge). */
function pastRange(type: string, range: { min: number; max: number }): string[] {
  if (type === 'integer') return [String(range.min - 1), String(range.max + 1)];
  return [String(range.min > 0 ? range.min / 2 : range.min - 1), String(range.max + 1)];
}

/** What one flag claims, tried on `base` (`name` is the command's words, for messages). */
function flagClaims(name: string, flag: FlagClaimDoc, base: string[], recordFlags: string[]): Claim[] {
  const claims: Claim[] = [];
  const accepted = (words: string[]): void => {
    claims.push({ what: `${name} ${words.join(' ')} accepted`, argv: [...base, ...words], expect: 'accepted' });
  };
  const refused = (words: string[]): void => {
    claims.push({ what: `${name} ${words.join(' ')} refused`, argv: [...base, ...words], expect: 'refused' });
  };
  if (flag.value !== null) {
    // A form with FIELDS (`--json FIELDS`) is for a command that takes `--json FIELDS`.
    const sample = (flag.values ?? []).slice(0, 2).join(',');
    for (const form of flag.value.forms) {
      if (/[A-Z]{2,}/.test(form) && flag.long === '--json' && !recordFlags.includes('--json FIELDS')) continue;
      accepted(form.replace(/\b[A-Z]{2,}\b/g, sample).split(' '));
    }
    return claims;
  }
  if ((flag.type === 'enum' || flag.type === 'list') && flag.values !== null) {
    for (const v of flag.values) accepted([flag.long, v]);
  }
  if ((flag.type === 'integer' || flag.type === 'number') && flag.range !== null) {
    accepted([flag.long, String(flag.range.min)]);
    accepted([flag.long, String(flag.range.max)]);
    for (const past of pastRange(flag.type, flag.range)) refused([flag.long, past]);
  }
  if (flag.type === 'int64') {
    accepted([flag.long, INT64_MIN]);
    accepted([flag.long, INT64_MAX]);
    for (const past of INT64_PAST) refused([flag.long, past]);
  }
  return claims;
}

/**
 * What a command's arguments claim: each enum value accepted; int64's edges accepted, one
 * past them refused. Only for an argument no required one follows: what follows may depend
 * on it (`config set KEY VALUE`: a base URL for `production.baseUrl`).
 */
function argumentClaims(cmd: CommandClaimDoc, samples: Samples): Claim[] {
  const name = cmd.path.join(' ');
  const claims: Claim[] = [];
  cmd.arguments.forEach((arg, i) => {
    if (cmd.arguments.slice(i + 1).some((a) => a.required)) return;
    const tries: [string, Claim['expect']][] =
      arg.type === 'int64'
        ? [
            [INT64_MIN, 'accepted'],
            [INT64_MAX, 'accepted'],
            ...INT64_PAST.map((p): [string, 'refused'] => [p, 'refused']),
          ]
        : (arg.values ?? []).map((v): [string, 'accepted'] => [v, 'accepted']);
    for (const [value, expect] of tries) {
      const base = baseOf(cmd, samples);
      base[cmd.path.length + i] = value;
      claims.push({ what: `${name} ${arg.name.toUpperCase()}=${value} ${expect}`, argv: base, expect });
    }
  });
  return claims;
}

/** What `--output` claims for a command: its `output` accepted, every other format refused; none listed where it does not act. */
function outputClaims(cmd: CommandClaimDoc, formats: string[], samples: Samples): Claim[] {
  const name = cmd.path.join(' ');
  if (!cmd.globalFlags.includes('--output')) {
    return cmd.output.length === 0
      ? []
      : [{ what: `${name}: --output listed where it does not act`, argv: [], expect: 'refused' }];
  }
  return formats.map((f) => {
    const expect = cmd.output.includes(f) ? 'accepted' : 'refused';
    return {
      what: `${name} --output ${f} ${expect}`,
      argv: [...baseOf(cmd, samples), '--output', f],
      expect,
      tty: f === 'table',
    };
  });
}

/** Every claim of the document about the commands that run. */
export function claimsOf(doc: ClaimDoc, samples: Samples = {}): Claim[] {
  const formats = doc.globalFlags.find((f) => f.long === '--output')?.values ?? [];
  const claims: Claim[] = [];
  for (const cmd of doc.commands.filter((c) => c.subcommands.length === 0)) {
    const name = cmd.path.join(' ');
    for (const flag of cmd.flags) {
      const needs = prerequisites(cmd, flag);
      claims.push(...flagClaims(name, flag, baseOf(cmd, samples, needs), cmd.recordFlags));
    }
    claims.push(...argumentClaims(cmd, samples), ...outputClaims(cmd, formats, samples));
    for (const group of cmd.requiredTogether) {
      for (const missing of group) {
        const base = baseOf(cmd, samples);
        const at = base.indexOf(missing);
        const flag = cmd.flags.find((f) => f.long === missing);
        base.splice(at, flag === undefined || flag.type === 'boolean' ? 1 : 2);
        claims.push({
          what: `${name} without ${missing} (required with ${group.join(', ')}) refused`,
          argv: base,
          expect: 'refused',
        });
      }
    }
  }
  return [...claims, ...globalClaims(doc, samples)];
}

/** The global flags' claims, each tried on the first command it acts on. */
function globalClaims(doc: ClaimDoc, samples: Samples): Claim[] {
  const claims: Claim[] = [];
  for (const flag of doc.globalFlags) {
    // `--output` is a command's own claim (its `output`).
    if (flag.long === '--output') continue;
    const cmd = doc.commands.find(
      (c) => c.globalFlags.includes(flag.long) && (flag.long !== '--json' || c.recordFlags.includes('--json FIELDS')),
    );
    if (cmd === undefined) continue;
    claims.push(...flagClaims(cmd.path.join(' '), flag, baseOf(cmd, samples), cmd.recordFlags));
  }
  return claims;
}

/**
 * Runs every claim with `run` and returns the failures, one line each: accepted means the
 * run did not end in a usage refusal (exit 2), refused means exit 2 with code `usage`.
 */
export async function checkClaims(claims: Claim[], run: (claim: Claim) => Promise<Outcome>): Promise<string[]> {
  const failures: string[] = [];
  for (const claim of claims) {
    if (claim.argv.length === 0) {
      failures.push(claim.what);
      continue;
    }
    const outcome = await run(claim);
    const refused = outcome.code === 2 && outcome.errorCode === 'usage';
    if (outcome.undecided === true) failures.push(`${claim.what}: undecided (no end, no output, no request)`);
    else if (claim.expect === 'accepted' && outcome.code === 2)
      failures.push(`${claim.what}: exit 2 (${outcome.errorCode ?? 'no code'}) for \`${claim.argv.join(' ')}\``);
    else if (claim.expect === 'refused' && !refused)
      failures.push(
        `${claim.what}: exit ${outcome.code} (${outcome.errorCode ?? 'no code'}) for \`${claim.argv.join(' ')}\``,
      );
  }
  return failures;
}
