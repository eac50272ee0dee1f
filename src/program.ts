/**
 * The commander tree (cli-contract.md "Commands", "Global flags"). Every command is
 * declared here, cheaply; its module is imported only when it runs, so `--help` and usage
 * errors never load the HTTP client, zod or the table library.
 */
import { Argument, Command, Option } from 'commander';
import { GET_PET_REMOVAL_DATE, GET_PET_REPLACEMENT } from './api/constants.js';
import type { Context } from './context.js';
import { UsageError } from './errors.js';
import type { Io } from './io.js';

/** A command module: parses its options and runs (STYLE.md "A command"). */
export interface CommandModule {
  run(ctx: Context, opts: Record<string, unknown>, args: string[]): Promise<number | void>;
}

/** A command's deprecation (wrangler's metadata): shown before it runs. */
export interface Deprecation {
  /** YYYY-MM-DD. */
  removal: string;
  replacement: string;
  /**
   * The command prints the warning itself, merged with the response's `Deprecation` and
   * `Sunset` headers (src/deprecation.ts); here only `--fail-on-deprecated` is enforced.
   */
  reportedByCommand?: boolean;
}

declare const __PETSTORE_VERSION__: string | undefined;
/** The version, injected at build time. */
export const VERSION = typeof __PETSTORE_VERSION__ === 'string' ? __PETSTORE_VERSION__ : '0.0.0-dev';

/** Program with the exit code of the command that ran. */
export type PetstoreProgram = Command & { petstoreExitCode?: number };

/**
 * Builds the program. `makeContext` turns the raw global options into a Context;
 * commander's own output and errors flow through `io` and `cli.ts`.
 */
export function buildProgram(io: Io, makeContext: (rawGlobals: Record<string, unknown>) => Context): PetstoreProgram {
  const program: PetstoreProgram = new Command('petstore');
  // Inherited settings are copied when a subcommand is created, so they come first.
  program
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // cli.ts prints the error (plain or JSON), so commander's own copy is dropped.
      outputError: () => undefined,
      getOutHelpWidth: () => 100,
      getErrHelpWidth: () => 100,
    })
    .showSuggestionAfterError(true)
    // Our own `help` command below takes a command path (`petstore help pets list`).
    .helpCommand(false);

  program
    .description('Administer the Pet Store API: list, create and look up animals.')
    .version(VERSION, '-V, --version', 'print the version')
    .addOption(new Option('-e, --env <name>', 'environment: production, staging or sandbox (env PETSTORE_ENV)'))
    .addOption(new Option('--base-url <url>', 'API base URL ending in /v1 (env PETSTORE_BASE_URL)'))
    .addOption(new Option('-o, --output <format>', 'output format: table, json or ndjson (default: table)'))
    .addOption(new Option('--json', 'same as --output json'))
    .addOption(new Option('--no-color', 'never colour output (also NO_COLOR)'))
    .addOption(new Option('--timeout <seconds>', 'deadline for the whole command, retries included (default: 30)'))
    .addOption(new Option('--retries <n>', 'retries of GET requests on transient failures, 0-10 (default: 2)'))
    .addOption(new Option('--verbose', 'print request and response lines on stderr (key redacted)'))
    .addOption(new Option('--fail-on-deprecated', 'refuse deprecated operations (env PETSTORE_FAIL_ON_DEPRECATED=1)'))
    .addHelpText(
      'after',
      `
Examples:
  $ petstore --env sandbox pets list --status available
  $ petstore pets list --json | jq '.[].name'
  $ petstore --env staging pets create --name Rex --category-id 1

Exit codes: 0 ok, 1 failure, 2 usage/config, 3 network/timeout, 4 auth, 5 not found, 6 rejected.`,
    );

  const action =
    (load: () => Promise<CommandModule>, deprecation?: Deprecation) =>
    async (...args: unknown[]): Promise<void> => {
      const cmd = args[args.length - 1] as Command;
      const ctx = makeContext(cmd.optsWithGlobals());
      if (deprecation !== undefined) {
        const what = `\`petstore ${cmd.parent?.name() ?? ''} ${cmd.name()}\``;
        if (ctx.globals.failOnDeprecated !== undefined) {
          throw new UsageError(
            `${what} is deprecated (removed on ${deprecation.removal}) and ${ctx.globals.failOnDeprecated} is set; nothing was sent`,
            `Use \`${deprecation.replacement}\` instead.`,
          );
        }
        if (deprecation.reportedByCommand !== true) {
          ctx.warn(
            `${what} is deprecated and will be removed on ${deprecation.removal}; use \`${deprecation.replacement}\` instead`,
          );
        }
      }
      const mod = await load();
      const code = await mod.run(ctx, cmd.opts(), cmd.args);
      if (typeof code === 'number') program.petstoreExitCode = code;
    };

  const pets = program
    .command('pets')
    .description('list, create and look up pets')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore pets list --status available
  $ petstore pets create --from-file pets.ndjson
  $ petstore help pets list`,
    );
  pets
    .command('list')
    .description('list pets (listPets: GET /pets)')
    .option('--limit <n>', 'at most N pets, 1-100 (default: 20)')
    .option('--status <status>', 'only pets with this status: available, pending or sold')
    .option(
      '--all',
      'fetch every page, following the server\'s Link rel="next" headers (pages of --limit, default 100)',
    )
    .option('--max-pages <n>', 'with --all: stop with exit 1 after N pages, 1-10000 (default: 1000)')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore pets list --status available
  $ petstore pets list --all --output ndjson > pets.ndjson
  $ petstore --env staging pets list --all --json | jq length`,
    )
    .action(action(() => import('./commands/pets/list.js')));
  pets
    .command('create')
    .description('add a pet (createPet: POST /pets); prints the created pet')
    .option('--name <name>', "the animal's name (required)")
    .option('--category-id <id>', 'category id, an int64 (required)')
    .option('--status <status>', 'available, pending or sold')
    .option('--from-file <file>', 'create every NewPet of a JSON array or NDJSON file, in order (- = stdin)')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore pets create --name Rex --category-id 1
  $ petstore pets create --name Kiwi --category-id 4 --status pending --json
  $ petstore pets create --from-file new-pets.ndjson --output ndjson

With --from-file, every record is checked before the first is sent. On a failure the
records not created are saved to FILE.remaining.ndjson (for stdin: a file in the temp
directory) for a re-run; a record that may have been created is reported, not saved.`,
    )
    .action(action(() => import('./commands/pets/create.js')));
  pets
    .command('get')
    .description(`show one pet (getPet: GET /pets/{petId}; deprecated, removed ${GET_PET_REMOVAL_DATE})`)
    .argument('<id>', 'the pet id, an int64')
    .addHelpText(
      'after',
      `
Deprecated: the API removes getPet on ${GET_PET_REMOVAL_DATE}. Use \`${GET_PET_REPLACEMENT}\` instead.

Examples:
  $ petstore pets get 7
  $ petstore pets get 9007199254740993 --json`,
    )
    .action(
      action(() => import('./commands/pets/get.js'), {
        removal: GET_PET_REMOVAL_DATE,
        replacement: GET_PET_REPLACEMENT,
        reportedByCommand: true,
      }),
    );

  const sandbox = program
    .command('sandbox')
    .description('the embedded Pet Store server')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore sandbox serve --port 8080
  $ petstore sandbox reset`,
    );
  sandbox
    .command('serve')
    .description('run the sandbox server in the foreground; prints its base URL and key')
    .option('--port <n>', 'TCP port, 0-65535 (default: 0, a free port)')
    .option('--host <host>', 'address to listen on (default: 127.0.0.1)')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore sandbox serve --port 8080
  $ curl -H "Authorization: Bearer $KEY" http://127.0.0.1:8080/v1/pets`,
    )
    .action(action(() => import('./commands/sandbox/serve.js')));
  sandbox
    .command('reset')
    .description('restore the sandbox data to its seed pets')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore sandbox reset
  $ petstore sandbox reset && petstore --env sandbox pets list`,
    )
    .action(action(() => import('./commands/sandbox/reset.js')));

  const auth = program.command('auth').description('store, show and remove the API key of an environment');
  auth
    .command('login')
    .description('store the API key of the selected environment (hidden prompt, or stdin with --with-token)')
    .option('--with-token', 'read the key from stdin instead of prompting')
    .option('--no-verify', 'store the key without checking it (GET /pets?limit=1)')
    .addHelpText(
      'after',
      `
The key is bound to the environment's base URL and never sent anywhere else.
There is no flag that takes the key itself: argv is visible to every local user.

Examples:
  $ petstore --env staging auth login
  $ petstore auth login --with-token < ~/petstore-production.key
  $ printenv STAGING_KEY | petstore --env staging auth login --with-token --no-verify`,
    )
    .action(action(() => import('./commands/auth/login.js')));
  auth
    .command('status')
    .description("show each environment's base URL and key (masked) and where they come from")
    .option('--check', 'try each key with one request (GET /pets?limit=1)')
    .addHelpText(
      'after',
      `
Exit code: 0; with --check, 4 when the selected environment has no key or its key is
refused (401), 3 when its server cannot be reached.

Examples:
  $ petstore auth status
  $ petstore --env staging auth status --check
  $ petstore auth status --json | jq '.environments[] | {name, key}'`,
    )
    .action(action(() => import('./commands/auth/status.js')));
  auth
    .command('logout')
    .description('remove the stored key of the selected environment')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore auth logout
  $ petstore --env staging auth logout`,
    )
    .action(action(() => import('./commands/auth/logout.js')));

  const config = program.command('config').description('read and change the config file (environment, base URLs)');
  config
    .command('get')
    .description('print a setting from the config file (or its default); exit 1 if it has neither')
    .argument('<key>', 'environment, production.baseUrl or staging.baseUrl')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config get environment
  $ petstore config get staging.baseUrl`,
    )
    .action(action(() => import('./commands/config/get.js')));
  config
    .command('set')
    .description('check a value and store it in the config file')
    .argument('<key>', 'environment, production.baseUrl or staging.baseUrl')
    .argument('<value>', 'the value (an environment name, or a base URL ending in /v1)')
    .addHelpText(
      'after',
      `
API keys are not settings: store them with \`petstore auth login\`.

Examples:
  $ petstore config set staging.baseUrl https://staging.petstore.example/v1
  $ petstore config set production.baseUrl https://api.petstore.example/v1
  $ petstore config set environment staging`,
    )
    .action(action(() => import('./commands/config/set.js')));
  config
    .command('unset')
    .description('remove a setting from the config file')
    .argument('<key>', 'environment, production.baseUrl or staging.baseUrl')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config unset environment
  $ petstore config unset staging.baseUrl`,
    )
    .action(action(() => import('./commands/config/unset.js')));
  config
    .command('list')
    .description('show every effective setting and where it comes from (flag, env var, file, default)')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config list
  $ petstore --env staging config list --json`,
    )
    .action(action(() => import('./commands/config/list.js')));
  config
    .command('path')
    .description("print the config file's path (works even when the file is broken)")
    .addHelpText(
      'after',
      `
Examples:
  $ petstore config path
  $ ls -l "$(petstore config path)"`,
    )
    .action(action(() => import('./commands/config/path.js')));

  program
    .command('completion')
    .description('print a shell completion script for bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'bash, zsh or fish').choices(['bash', 'zsh', 'fish']))
    .addHelpText(
      'after',
      `
Examples:
  $ source <(petstore completion bash)                 # in ~/.bashrc
  $ source <(petstore completion zsh)                  # in ~/.zshrc
  $ petstore completion fish > ~/.config/fish/completions/petstore.fish`,
    )
    .action(action(() => import('./commands/completion.js')));

  program
    .command('help')
    .description('show help for a command')
    .argument('[command...]', 'command words, e.g. pets list')
    .addHelpText(
      'after',
      `
Examples:
  $ petstore help pets list
  $ petstore help completion`,
    )
    .action((words: string[]) => {
      let cmd: Command = program;
      for (const word of words) {
        const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
        if (sub === undefined) {
          const known = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
          throw new UsageError(
            `unknown command ${JSON.stringify([...words.slice(0, words.indexOf(word)), word].join(' '))}`,
            `Commands${cmd === program ? '' : ` of \`${cmd.name()}\``}: ${known.join(', ')}.`,
          );
        }
        cmd = sub;
      }
      cmd.help();
    });

  return program;
}
