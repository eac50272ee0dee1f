/** `petstore config get|set|unset|list|path`: the group. */
import { Command } from '@commander-js/extra-typings';
import type { Runner } from '../runner.js';
import { newGetCommand } from './get/get.js';
import { newListCommand } from './list/list.js';
import { newPathCommand } from './path/path.js';
import { newSetCommand } from './set/set.js';
import { newUnsetCommand } from './unset/unset.js';

/** Declares `config` with its verbs. */
export function newConfigCommand(f: Runner) {
  return new Command('config')
    .description('read and change the config file (environment, base URLs, key commands)')
    .summary('read and change the config file')
    .addCommand(newGetCommand(f))
    .addCommand(newSetCommand(f))
    .addCommand(newUnsetCommand(f))
    .addCommand(newListCommand(f))
    .addCommand(newPathCommand(f));
}
