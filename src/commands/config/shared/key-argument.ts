/** The `<key>` argument of `config get|set|unset`: one of the known settings. */
import { Argument } from '@commander-js/extra-typings';
import { findSetting, SETTING_KEYS } from '../../../config/keys.js';

/**
 * A `<key>` argument whose choices (for help and completion) are the known settings, and
 * whose parser refuses any other name with `findSetting`'s message (an API-key-like name
 * points at `auth login`).
 */
export function keyArgument(verb: 'get' | 'set' | 'unset') {
  return new Argument('<key>', 'a setting').choices(SETTING_KEYS).argParser((v) => findSetting(v, verb).key);
}
