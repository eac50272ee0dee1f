/**
 * The sandbox's data file (`sandbox.json` in the config directory): the pets and the next
 * id. Several CLI processes may use it at once, so every change holds a lock
 * (proper-lockfile, a `.lock` directory made atomically with mkdir) around
 * read-modify-write, and every write is atomic (write-file-atomic: temp file, fsync,
 * rename), so readers never see half a file and Ctrl-C never leaves one.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { PetSchema, type Pet } from '../api/schemas.js';
import { ConfigError } from '../errors.js';
import { parseJson, stringifyJson } from '../json.js';
import { SEED_NEXT_ID, SEED_PETS } from './seed.js';

/** The file's content. */
export interface SandboxData {
  nextId: bigint;
  pets: Pet[];
}

const FileSchema = z.object({
  nextId: z.union([z.int(), z.bigint()]).transform((n) => BigInt(n)),
  pets: z.array(PetSchema),
});

/** Seed data, fresh copy. */
export function seedData(): SandboxData {
  return { nextId: SEED_NEXT_ID, pets: SEED_PETS.map((p) => ({ ...p })) };
}

/** A file-backed pet store shared by processes. */
export class SandboxStore {
  constructor(readonly file: string) {}

  /**
   * Reads the data; seeds the file on first use.
   * @throws ConfigError when the file exists but is not sandbox data (it is left as is).
   */
  async read(): Promise<SandboxData> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      return this.update((data) => data);
    }
    return this.decode(text);
  }

  /**
   * Runs `change` on the current data under the lock and writes its result atomically.
   * Returns what was written.
   */
  async update(
    change: (data: SandboxData) => SandboxData | Promise<SandboxData>,
    opts: { replace?: boolean } = {},
  ): Promise<SandboxData> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    // Loaded here, not at the top: reads need neither, and an `--env sandbox` read then
    // skips loading them (and graceful-fs, which patches fs): a few ms and ~2.5 MiB.
    const { default: lockfile } = await import('proper-lockfile');
    const release = await lockfile.lock(this.file, {
      realpath: false,
      stale: 10_000,
      retries: { retries: 200, minTimeout: 5, maxTimeout: 50, randomize: true },
    });
    try {
      let current = seedData();
      if (opts.replace !== true) {
        try {
          current = this.decode(await readFile(this.file, 'utf8'));
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        }
      }
      const next = await change(current);
      await this.write(next);
      return next;
    } finally {
      await release().catch(() => undefined);
    }
  }

  /** Restores the seed data (under the lock), whatever the file held, even if unreadable. */
  async reset(): Promise<SandboxData> {
    return this.update(() => seedData(), { replace: true });
  }

  private async write(data: SandboxData): Promise<void> {
    const { default: writeFileAtomic } = await import('write-file-atomic');
    await writeFileAtomic(this.file, stringifyJson({ nextId: data.nextId, pets: data.pets }, 2) + '\n', {
      mode: 0o600,
    });
  }

  private decode(text: string): SandboxData {
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch (err) {
      throw new ConfigError(
        `${this.file}: sandbox data is not valid JSON (${(err as Error).message})`,
        'Restore the seed data with `petstore sandbox reset`.',
      );
    }
    const result = FileSchema.safeParse(parsed);
    if (!result.success) {
      throw new ConfigError(
        `${this.file}: not sandbox data (${result.error.issues[0]?.path.join('.') ?? ''} ${result.error.issues[0]?.message ?? ''})`,
        'Restore the seed data with `petstore sandbox reset`.',
      );
    }
    return result.data;
  }
}
