/**
 * `EnvVars`: the one way petstore reads its environment. It holds a copy of the run's
 * environment and answers only for the variables declared in `config/env-vars.ts`, each
 * read by its declared type under the registry's one rule for "set" (defined and not
 * empty). Commands get it as `ctx.env`; nothing outside `config/` touches `process.env`
 * or a raw environment object (test/unit/architecture.test.ts).
 */
import { UsageError } from '../base/errors.js';
import { quote } from '../base/flag-values.js';
import { ENV_VARS, type EnvVarValue, type ReadEnvVarName } from './env-vars.js';

/** A raw environment: `process.env`, or the object a test passes to `main`. */
export type RawEnv = Readonly<Record<string, string | undefined>>;

/** The names whose values are secrets (`secret: true`). */
const SECRET_NAMES: readonly string[] = Object.entries(ENV_VARS)
  .filter(([, spec]) => 'secret' in spec)
  .map(([name]) => name);

/** The run's environment variables, read through the registry. */
export class EnvVars {
  readonly #raw: RawEnv;

  /** Copies `raw`, so later changes to it do not change this run. */
  constructor(raw: RawEnv) {
    this.#raw = { ...raw };
  }

  /**
   * The spelling that supplies `name`, and its text: for a `lowercase` variable the
   * lower-case name first (curl's rule). Undefined when unset (not defined, or empty).
   */
  source(name: ReadEnvVarName): { name: string; text: string } | undefined {
    const spec = ENV_VARS[name];
    const names = 'lowercase' in spec ? [name.toLowerCase(), name] : [name];
    for (const n of names) {
      const text = this.#raw[n];
      if (text !== undefined && text !== '') {
        // An absolute-path variable with a relative value is ignored (XDG Base Directory).
        if (spec.type === 'absolute-path' && !text.startsWith('/')) return undefined;
        return { name: n, text };
      }
    }
    return undefined;
  }

  /** Whether `name` is set (defined and not empty; for an `absolute-path`, absolute). */
  isSet(name: ReadEnvVarName): boolean {
    return this.source(name) !== undefined;
  }

  /**
   * The value of `name` read by its type: a string, a boolean (`0`/`false` in any case:
   * false), or one of its allowed values. Undefined when unset.
   * @throws UsageError (exit 2) naming the variable, its value and the values allowed,
   * when a variable with a list of values holds another.
   */
  get<N extends ReadEnvVarName>(name: N): EnvVarValue<N> | undefined {
    const found = this.source(name);
    if (found === undefined) return undefined;
    const { type } = ENV_VARS[name];
    if (type === 'boolean') {
      return !['0', 'false'].includes(found.text.toLowerCase()) as EnvVarValue<N>;
    }
    if (typeof type === 'string') return found.text as EnvVarValue<N>;
    const allowed: readonly string[] = type;
    if (!allowed.includes(found.text)) {
      throw new UsageError(`invalid ${found.name} ${quote(found.text)}: must be one of ${allowed.join(', ')}`);
    }
    return found.text as EnvVarValue<N>;
  }

  /**
   * The environment for a process petstore starts (a pager, an `apiKeyCommand`): this
   * run's environment without petstore's secrets (`PETSTORE_API_KEY`), plus `extra`.
   */
  forChild(extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
    const kept = Object.entries(this.#raw).filter(([name]) => !SECRET_NAMES.includes(name));
    return { ...Object.fromEntries(kept), ...extra };
  }
}
