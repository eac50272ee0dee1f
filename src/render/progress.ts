/**
 * What the progress line of a paged walk says (Io draws it: `io/progress.ts`). Pure.
 */

/** `fetched 3 pages, 60 pets…` */
export function describeListProgress(pages: number, pets: number): string {
  return `fetched ${pages} page${pages === 1 ? '' : 's'}, ${pets} pet${pets === 1 ? '' : 's'}…`;
}
