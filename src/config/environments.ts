/**
 * The environments of cli-contract.md "Environments": two remote APIs and the embedded
 * sandbox. A leaf module, so the variable registry can name them without importing the
 * resolver.
 */

/** The environments of the contract. */
export const ENVIRONMENTS = ['production', 'staging', 'sandbox'] as const;
/** An environment name. */
export type EnvName = (typeof ENVIRONMENTS)[number];

/** Environments that take a configured base URL and a key of their own. */
export const REMOTE_ENVIRONMENTS = ['production', 'staging'] as const;
/** A remote environment. */
export type RemoteEnvName = (typeof REMOTE_ENVIRONMENTS)[number];
