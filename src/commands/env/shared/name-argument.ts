/** The `<name>` argument of `env use` and `env remove`. */
import { Argument } from '@commander-js/extra-typings';

/** The environment-name argument; its shape is checked by the run (`checkEnvName`), whether it is known under the config lock. */
export function nameArgument(what: string) {
  return new Argument('<name>', `the environment ${what}`);
}
