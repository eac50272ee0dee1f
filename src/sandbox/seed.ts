/**
 * The sandbox's seed data: ten animals across the three statuses and five categories,
 * one of them with ids beyond 2^53 so that exact int64 handling shows on first use.
 */
import type { Pet } from '../client/schemas.js';

/** Seed pets, in id order. */
export const SEED_PETS: readonly Pet[] = [
  { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
  { id: 2, name: 'Whiskers', categoryId: 2, status: 'available' },
  { id: 3, name: 'Bubbles', categoryId: 3, status: 'pending' },
  { id: 4, name: 'Polly', categoryId: 4, status: 'sold' },
  { id: 5, name: 'Nibbles', categoryId: 5, status: 'available' },
  { id: 6, name: 'Shadow', categoryId: 2, status: 'pending' },
  { id: 7, name: 'Goldie', categoryId: 3, status: 'available' },
  { id: 8, name: 'Buddy', categoryId: 1, status: 'sold' },
  { id: 9, name: 'Kiwi', categoryId: 4, status: 'available' },
  { id: 9007199254740993n, name: 'Atlas', categoryId: 9223372036854775807n, status: 'available' },
];

/** The first id `createPet` assigns after a reset. */
export const SEED_NEXT_ID = 10n;
