/** `petstore auth`: the group of `login`, `status`, `logout` and `token`. */
import { Command } from '@commander-js/extra-typings';
import type { Runner } from '../runner.js';
import { newLoginCommand } from './login/login.js';
import { newLogoutCommand } from './logout/logout.js';
import { newStatusCommand } from './status/status.js';
import { newTokenCommand } from './token/token.js';

/** Declares `auth` with its verbs. */
export function newAuthCommand(f: Runner) {
  return new Command('auth')
    .description('store, show, remove and print the API key of an environment')
    .addCommand(newLoginCommand(f))
    .addCommand(newStatusCommand(f))
    .addCommand(newLogoutCommand(f))
    .addCommand(newTokenCommand(f));
}
