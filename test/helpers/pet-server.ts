/**
 * A Pet Store that creates pets for bulk-create tests, on top of test-server.ts: each POST
 * is answered as the test decides — created (ids from 1000, the body echoed), an API Error,
 * a reset connection — possibly after holding it; it keeps what it did with each record
 * (by the record's `name`), how many requests it held at once, and when.
 */
import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { tempDir } from './temp-config.js';
import { startTestServer, type Reply, type TestServer, type TestServerOptions } from './test-server.js';

/** How one request is answered: create the pet, an error reply, or reset the connection. */
export type PetAnswer = 'create' | 'destroy' | Reply;

/** What the server knows of one request when it decides. */
export interface PetRequest {
  /** The record's `name`. */
  name: string;
  /** 1 for the record's first request, 2 for the next... */
  attempt: number;
  /** Requests received and not answered yet, this one included. */
  pending: number;
  /** 1-based count of POSTs received, this one included. */
  count: number;
}

/** One thing the server did. */
interface PetEvent {
  name: string;
  attempt: number;
  /** `received` when it came; then how it was answered. */
  what: 'received' | 'created' | 'error' | 'destroyed';
  /** ms since the server started (performance.now). */
  at: number;
  /** The error status, for `error`. */
  status?: number;
}

/** A running pet server. */
export interface PetServer extends TestServer {
  events: PetEvent[];
  /** Most requests held at once. */
  maxPending(): number;
  /** Names of the pets created, in the order they were created. */
  created(): string[];
  /** Names answered with an error status / reset, in the order they were. */
  answered(what: 'error' | 'destroyed'): string[];
  /** Names received (every attempt), in the order they came. */
  received(): string[];
}

/**
 * Starts a pet server. `decide` says how to answer each POST (default: create at once) and
 * may take its time: a request is held until its promise resolves.
 */
export async function startPetServer(
  decide: (req: PetRequest) => PetAnswer | Promise<PetAnswer> = () => 'create',
  opts: TestServerOptions = {},
): Promise<PetServer> {
  const events: PetEvent[] = [];
  const attempts = new Map<string, number>();
  let pending = 0;
  let most = 0;
  let count = 0;
  let nextId = 1000;
  const started = performance.now();
  const log = (e: Omit<PetEvent, 'at'>): void => {
    events.push({ ...e, at: performance.now() - started });
  };
  const server = await startTestServer(async (req, res: ServerResponse) => {
    const pet = JSON.parse(req.body) as { name: string; categoryId: number; status?: string };
    const attempt = (attempts.get(pet.name) ?? 0) + 1;
    attempts.set(pet.name, attempt);
    pending++;
    count++;
    most = Math.max(most, pending);
    log({ name: pet.name, attempt, what: 'received' });
    let answer: PetAnswer;
    try {
      answer = await decide({ name: pet.name, attempt, pending, count });
    } finally {
      pending--;
    }
    if (answer === 'destroy') {
      log({ name: pet.name, attempt, what: 'destroyed' });
      res.destroy();
      return undefined;
    }
    if (answer === 'create') {
      log({ name: pet.name, attempt, what: 'created' });
      const cat = /"categoryId":(-?\d+)/.exec(req.body)?.[1] ?? '0';
      return {
        status: 201,
        raw: `{"id":${nextId++},"name":${JSON.stringify(pet.name)},"categoryId":${cat},"status":${JSON.stringify(pet.status ?? 'available')}}`,
      };
    }
    log({ name: pet.name, attempt, what: 'error', status: answer.status });
    return answer;
  }, opts);
  const names = (what: PetEvent['what']): string[] => events.filter((e) => e.what === what).map((e) => e.name);
  return {
    ...server,
    events,
    maxPending: () => most,
    created: () => names('created'),
    answered: (what) => names(what),
    received: () => names('received'),
  };
}

/** `n` NDJSON records named P1..Pn (categoryId = n). */
export function petRecords(n: number, from = 1): string {
  return Array.from({ length: n }, (_, i) => `{"name":"P${from + i}","categoryId":${from + i}}\n`).join('');
}

/** P`from`..P`to`. */
export function petNames(from: number, to: number): string[] {
  return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => `P${from + i}`);
}

/** A promise and the function that resolves it. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

/** `n` records P1..Pn (`petRecords`) in `pets.ndjson` of a new temp dir. */
export function petInput(n: number): { dir: string; file: string } {
  const dir = tempDir();
  const file = join(dir, 'pets.ndjson');
  writeFileSync(file, petRecords(n));
  return { dir, file };
}

/** The line of pet `P<n>`: record n is on line n. */
export const lineOf = (name: string): number => Number(name.slice(1));

/** Names P<n> in input order. */
export const inLineOrder = (names: Iterable<string>): string[] => [...names].sort((a, b) => lineOf(a) - lineOf(b));

/** The names of the pets in NDJSON text or one JSON array (stdout, a remaining file). */
export function printedNames(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  const pets = trimmed.startsWith('[')
    ? (JSON.parse(trimmed) as { name: string }[])
    : trimmed.split('\n').map((l) => JSON.parse(l) as { name: string });
  return pets.map((p) => p.name);
}
