// Preloaded into a CLI run (NODE_OPTIONS="--require <this file>") by start-up tests: at exit
// it writes the names of the Node built-in modules the process loaded, one a line, to the
// file named by PETSTORE_TEST_MODULE_LIST. process.moduleLoadList is Node's own record of
// them ("NativeModule <name>"), including those other built-ins load for themselves.
'use strict';
const { writeFileSync } = require('node:fs');

process.on('exit', () => {
  const names = process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13));
  writeFileSync(process.env.PETSTORE_TEST_MODULE_LIST, `${names.join('\n')}\n`);
});
