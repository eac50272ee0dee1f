/**
 * The registry of environment variables in words, for docs: docs/commands.md's list is
 * this table (test/unit/env-vars.test.ts keeps them equal), and a man page can print the
 * same cells; `petstore help environment` prints the values' words as plain text.
 */
import { ENV_VARS, type EnvVarName, type EnvVarType } from './env-vars.js';

/** The values a variable of this type takes, in words (Markdown: values in backquotes). */
export function describeEnvVarType(type: EnvVarType): string {
  if (typeof type !== 'string') {
    const values = type.map((v) => `\`${v}\``);
    return `${values.slice(0, -1).join(', ')} or ${values.at(-1) ?? ''}`;
  }
  switch (type) {
    case 'boolean':
      return 'yes or no: `0` and `false` are no';
    case 'path':
      return 'a path';
    case 'absolute-path':
      return 'an absolute path (a relative one is ignored)';
    case 'string':
      return 'text';
  }
}

/** The variable's name as listed: with its lower-case spelling when that is read too. */
function listedEnvVarName(name: EnvVarName): string {
  return 'lowercase' in ENV_VARS[name] ? `\`${name}\`, \`${name.toLowerCase()}\`` : `\`${name}\``;
}

/** Who reads a variable that petstore's code does not read through `EnvVars`, in words. */
export const READ_BY = {
  node: 'Read by Node itself.',
  shim: 'Read by the start-up shim, before the CLI loads.',
} as const;

/**
 * The Markdown table of every declared variable, in the registry's order: name, values,
 * what applies when it is unset, meaning (and who reads it, when Node does).
 */
export function envVarsMarkdownTable(): string {
  const rows = (Object.keys(ENV_VARS) as EnvVarName[]).map((name) => {
    const spec: { type: EnvVarType; default?: string; meaning: string; readBy?: string } = ENV_VARS[name];
    const meaning =
      spec.readBy === undefined ? spec.meaning : `${spec.meaning} ${READ_BY[spec.readBy as keyof typeof READ_BY]}`;
    return `| ${listedEnvVarName(name)} | ${describeEnvVarType(spec.type)} | ${spec.default ?? '—'} | ${meaning} |`;
  });
  return ['| variable | value | when unset | meaning |', '|---|---|---|---|', ...rows].join('\n') + '\n';
}
