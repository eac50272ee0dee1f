/**
 * The pet operations of the API (spec §4), each declared once as data: its operation id,
 * the CLI verb and the MCP tool that are its two front doors (or a declared absence), its
 * inputs (`inputs.ts`), whether it writes, the words of its consent question and of its
 * hints for each front. The CLI verbs (`commands/pets/<verb>/<verb>.ts`) make their flags
 * from these inputs, `petstore mcp` makes its tools, their JSON Schemas and argument checks
 * from them, and the tests walk `PET_OPERATIONS` to cover every operation on both fronts.
 *
 * Loaded at start-up with the verbs: plain data, no zod, no SDK.
 */
import {
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  MAX_PAGES_DEFAULT,
  MAX_PAGES_LIMIT,
  PET_STATUSES,
  operationOf,
  type OperationId,
} from '../client/constants.js';
import { parseInt64, parseLimit, parseMaxPages, parseStatus } from '../base/flag-values.js';
import type { Input } from './inputs.js';
import { parseCursor } from './list-cursor.js';

/** An operation's MCP tool: what `tools/list` says of it besides its schemas. */
export interface ToolDeclaration {
  /** The tool's name (`list_pets`). */
  readonly name: string;
  readonly title: string;
  /**
   * What it does, for its description; `where` names the served environment and its host
   * (`staging (api.example.com)`). The server adds what every tool's description says.
   */
  readonly description: (where: string) => string;
  /** The structured result it answers with: a list of pets, or one pet. */
  readonly output: 'pets' | 'pet';
}

/** One operation and its two front doors. */
export interface OperationDeclaration {
  /** The spec's operation id (§4). */
  readonly id: OperationId;
  /** The CLI verb's words (`pets list`), or null: an operation the CLI does not offer. */
  readonly verb: string | null;
  /** The MCP tool, or null: an operation agents are not offered (a declared choice). */
  readonly tool: ToolDeclaration | null;
  /** Whether it changes the store: asked about under confirmWrites, offered to agents only with `--allow-writes`. */
  readonly writes: boolean;
  /** Its inputs by key (their key in the typed options), in the order the CLI's help lists them. */
  readonly inputs: Readonly<Record<string, Input>>;
  /**
   * What a write does, as its consent question names it (`create the pet {…}`), given what
   * it sends as JSON; both fronts ask with these words.
   */
  readonly consent?: (sent: string) => string;
  /** What its CLI verb does, for the verb's help (`update a pet`), where the verb is drawn from the declaration. */
  readonly summary?: string;
  /**
   * How an operation that answers one Pet is sent by the run both fronts share
   * (`client.sendOperation`): the body made from its values (none: no body), and what a
   * write did, in the past tense. Its path's parameters (`{petId}`) are the inputs of the
   * same keys. Absent for an operation whose fronts run it their own way (paging, the
   * lookup after getPet's Sunset, bulk create): such an operation has a verb and a tool
   * handler of its own.
   */
  readonly request?: {
    readonly body?: (values: Readonly<Record<string, unknown>>) => unknown;
    readonly did?: 'updated';
  };
}

const PAGES = { min: 1, max: MAX_PAGES_LIMIT };
/** Why `--status` is taken once (cli-contract.md "Input rules"). */
const ONE_STATUS = 'the API filters by one status';
const LIMITS = { min: LIMIT_MIN, max: LIMIT_MAX };

/** An int64's words for an agent: JSON numbers past 2^53 are rounded by every JavaScript parser. */
const INT64_ARGUMENT = 'an int64: a string of digits (exact), or an integer up to 2^53 - 1';

/** `listPets` (spec §4.1): `pets list`, `list_pets`. */
export const LIST_PETS = {
  id: 'listPets',
  verb: 'pets list',
  tool: {
    name: 'list_pets',
    title: 'List pets',
    description: () =>
      'List the pets of the store (listPets, GET /pets): one page (limit 1-100, default 20), or with all: true every page, up to max_pages and the result size cap. Every result says whether it is complete; an incomplete one gives next_cursor: call list_pets again with cursor set to it for the next page or the rest of the list. Optionally only one status.',
    output: 'pets',
  },
  writes: false,
  inputs: {
    limit: {
      flag: '-L, --limit <n>',
      argument: 'limit',
      type: 'integer',
      range: LIMITS,
      help: {
        cli: `at most N pets, ${LIMIT_MIN}-${LIMIT_MAX} (default: ${LIMIT_DEFAULT}; more with --all)`,
        mcp: `pets per page, ${LIMIT_MIN}-${LIMIT_MAX} (default: the server's, ${LIMIT_DEFAULT}; with all: ${LIMIT_MAX})`,
      },
      parse: parseLimit,
    },
    status: {
      flag: '-s, --status <status>',
      argument: 'status',
      type: 'enum',
      choices: PET_STATUSES,
      once: ONE_STATUS,
      help: { cli: 'only pets with this status', mcp: 'only pets with this status' },
      parse: parseStatus,
    },
    all: {
      flag: '--all',
      argument: 'all',
      type: 'boolean',
      help: {
        cli: 'fetch every page, following the server\'s Link rel="next" headers (pages of --limit, default 100)',
        mcp: 'follow the pages to the end (within max_pages and the result size cap)',
      },
    },
    maxPages: {
      flag: '--max-pages <n>',
      argument: 'max_pages',
      type: 'integer',
      range: PAGES,
      help: {
        cli: `with --all: stop with exit 1 after N pages, ${PAGES.min}-${PAGES.max} (default: ${MAX_PAGES_DEFAULT})`,
        mcp: `with all: the most pages fetched, ${PAGES.min}-${PAGES.max} (default: ${MAX_PAGES_DEFAULT})`,
      },
      parse: parseMaxPages,
      needs: {
        input: 'all',
        why: { cli: 'it caps how many pages --all fetches', mcp: 'it bounds the walk through the pages' },
      },
    },
    // The tools' own way on through a list; the CLI's `--all` walks the whole list in one run.
    cursor: {
      flag: null,
      argument: 'cursor',
      type: 'string',
      help: {
        mcp: 'the next_cursor of an earlier list_pets result: goes on with that list where it stopped (its limit and status come with it)',
      },
      parse: parseCursor,
    },
  },
} as const satisfies OperationDeclaration;

/** Why getPet's search values need `--via-list`. */
const VIA_LIST_ONLY = 'it shapes the search through listPets, and getPet takes no such value';

/** `getPet` (spec §4.3, deprecated): `pets get ID`, `get_pet`; after its Sunset both search listPets. */
export const GET_PET = {
  id: 'getPet',
  verb: 'pets get',
  tool: {
    name: 'get_pet',
    title: 'Get one pet',
    description: () =>
      'Get one pet by id: getPet (GET /pets/{petId}, deprecated) while it exists, else a search of listPets (GET /pets) by itself. A pet that does not exist is error code not_found either way; lookup says which way was taken.',
    output: 'pet',
  },
  writes: false,
  inputs: {
    // The CLI takes it as its argument, `pets get ID`.
    petId: {
      argument: 'id',
      type: 'int64',
      required: true,
      example: '7',
      label: 'pet ID',
      help: { cli: 'the pet id, an int64', mcp: `the pet id, ${INT64_ARGUMENT}` },
      parse: parseInt64,
    },
    // The CLI's own way through listPets; an agent's get_pet takes it by itself after the Sunset.
    viaList: {
      flag: '--via-list',
      type: 'boolean',
      help: { cli: "find the pet through listPets (GET /pets, getPet's replacement), pages of 100" },
    },
    status: {
      flag: '-s, --status <status>',
      type: 'enum',
      choices: PET_STATUSES,
      once: ONE_STATUS,
      help: { cli: 'with --via-list: search only pets with this status' },
      needs: { input: 'viaList', why: { cli: VIA_LIST_ONLY } },
      parse: parseStatus,
    },
    maxPages: {
      flag: '--max-pages <n>',
      type: 'integer',
      range: PAGES,
      help: {
        cli: `with --via-list: stop with exit 1 after N pages, ${PAGES.min}-${PAGES.max} (default: ${MAX_PAGES_DEFAULT})`,
      },
      parse: parseMaxPages,
      needs: { input: 'viaList', why: { cli: VIA_LIST_ONLY } },
    },
  },
} as const satisfies OperationDeclaration;

/** `createPet` (spec §4.2): `pets create`, `create_pet` (offered with `--allow-writes`). */
export const CREATE_PET = {
  id: 'createPet',
  verb: 'pets create',
  tool: {
    name: 'create_pet',
    title: 'Create a pet',
    description: (where) =>
      `Create one pet in ${where} (createPet, POST /pets). Each call creates a new pet: never repeat a call that may have succeeded; a result that says the pet may have been created asks to check with list_pets first. The person may be asked to confirm.`,
    output: 'pet',
  },
  writes: true,
  consent: (sent) => `create the pet ${sent}`,
  inputs: {
    name: {
      flag: '--name <name>',
      argument: 'name',
      type: 'string',
      required: true,
      example: 'Rex',
      nonEmpty: true,
      help: { cli: "the animal's name (required; asked for on a terminal)", mcp: "the animal's name" },
    },
    categoryId: {
      flag: '--category-id <id>',
      argument: 'categoryId',
      type: 'int64',
      required: true,
      example: '1',
      help: {
        cli: 'category id, an int64 (required; asked for on a terminal)',
        mcp: `the category id, ${INT64_ARGUMENT}`,
      },
      parse: parseInt64,
    },
    status: {
      flag: '-s, --status <status>',
      argument: 'status',
      type: 'enum',
      choices: PET_STATUSES,
      once: ONE_STATUS,
      help: { cli: 'the availability of the new pet', mcp: 'the status (the server decides when left out)' },
      parse: parseStatus,
    },
  },
} as const satisfies OperationDeclaration;

/** Every pet operation of the spec, in the order `tools/list` offers their tools. */
export const PET_OPERATIONS: readonly OperationDeclaration[] = [LIST_PETS, GET_PET, CREATE_PET];

/**
 * The path parameters of `op` (spec §4: `{petId}`) from the values of the inputs of the
 * same keys, as decimal strings (int64 exact).
 */
export function pathParams(
  op: OperationDeclaration,
  values: Readonly<Record<string, unknown>>,
): Record<string, string> {
  const params: Record<string, string> = {};
  for (const match of operationOf(op.id).path.matchAll(/\{(\w+)\}/g)) {
    const name = match[1] ?? '';
    params[name] = String(values[name]);
  }
  return params;
}
