/**
 * What the progress line of a paged walk says (Io draws it: `io/progress.ts`). Pure.
 */
import { countOf } from '../text/count.js';

/** `fetched 71 pages, 7,100 pets…` */
export function describeListProgress(pages: number, pets: number): string {
  return `fetched ${countOf(pages, 'page')}, ${countOf(pets, 'pet')}…`;
}
