/**
 * Where `petstore mcp`'s two files are, and nothing else loads them: the MCP SDK's bundle
 * (`mcp.cjs`, from `sdk.ts`) and the OpenAPI document it serves as a resource. Built, they
 * sit beside the bundle in dist/ (`scripts/build.mjs`); inside the standalone executable
 * they are its assets (Node's single-executable `getAsset`, `scripts/build-exe.mjs`), as
 * jq's are (`render/jq-assets.ts`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { getAsset, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { compileFunction } from 'node:vm';
import { CliError, ExitCode } from '../../base/errors.js';
import type { McpModule } from './spec.js';

/** Set by scripts/build.mjs (esbuild `define`); absent when the sources run directly. */
declare const __PETSTORE_BUILT__: boolean | undefined;

/**
 * Loads the MCP SDK's bundle: `mcp.cjs` beside the bundle, or, inside the executable, the
 * asset's text run as a CommonJS module (it requires nothing but Node's built-in modules).
 * @throws CliError `internal` when petstore runs from its sources (the SDK is built only
 * into dist/).
 */
export function loadMcpModule(): McpModule {
  if (isSea()) {
    const module = { exports: {} as McpModule };
    const filename = `${process.execPath}#mcp.cjs`;
    const run = compileFunction(
      getAsset('mcp.cjs', 'utf8'),
      ['module', 'exports', 'require', '__filename', '__dirname'],
      {
        filename,
      },
    ) as (...args: unknown[]) => void;
    run(module, module.exports, createRequire(process.execPath), filename, '/');
    return module.exports;
  }
  if (typeof __PETSTORE_BUILT__ !== 'boolean') {
    throw new CliError('petstore mcp runs from the build only: run `npm run build`, then bin/petstore.js', {
      exitCode: ExitCode.failure,
      code: 'internal',
    });
  }
  return createRequire(import.meta.url)(fileURLToPath(new URL('./mcp.cjs', import.meta.url))) as McpModule;
}

/**
 * The OpenAPI document petstore was built with (openapi.yaml), as text.
 * @throws the file system's error when it cannot be read.
 */
export function openApiText(): string {
  if (isSea()) return getAsset('openapi.yaml', 'utf8');
  const beside = typeof __PETSTORE_BUILT__ === 'boolean' ? './openapi.yaml' : '../../../openapi.yaml';
  return readFileSync(new URL(beside, import.meta.url), 'utf8');
}
