/**
 * HTTP reason phrases (RFC 9110 section 15: `404` is "Not Found"), as Node's
 * `http.STATUS_CODES` has them. `node:http` (and its client, server and agent modules) is
 * loaded on the first call: undici does not need it, and a run that prints no status line
 * never loads it (docs/performance.md "What loads when").
 */

/** The reason phrase of `status` (a status code, 100-599), or '' for one Node does not name. */
export function reasonPhrase(status: number): string {
  return process.getBuiltinModule('node:http').STATUS_CODES[status] ?? '';
}
