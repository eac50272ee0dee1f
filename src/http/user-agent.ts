/**
 * The User-Agent petstore sends (cli-contract.md "Errors and exit codes"):
 * `petstore-cli/VERSION (node VERSION; OS ARCH)`, so a server's logs and its support desk can
 * tell which release, runtime and platform sent a request. Built from values already in the
 * process (the version the build injects, `process.version`, `process.platform`,
 * `process.arch`): nothing is loaded for it.
 */

declare const __PETSTORE_VERSION__: string | undefined;

/** `petstore-cli/0.1.0 (node 24.4.0; linux x64)`; the version is `0.0.0-dev` outside a build. */
export function userAgent(): string {
  const version = typeof __PETSTORE_VERSION__ === 'string' ? __PETSTORE_VERSION__ : '0.0.0-dev';
  return `petstore-cli/${version} (node ${process.versions.node}; ${process.platform} ${process.arch})`;
}
