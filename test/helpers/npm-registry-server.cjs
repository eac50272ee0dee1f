// A Verdaccio registry on 127.0.0.1, on a free port: `node npm-registry-server.cjs CONFIG`
// prints `PORT <n>` once it listens, and exits when stdin closes (test/helpers/npm-registry.ts).
'use strict';
const { runServer } = require('verdaccio');

runServer(process.argv[2]).then(
  (app) => {
    const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`PORT ${server.address().port}\n`));
  },
  (err) => {
    process.stderr.write(`verdaccio did not start: ${err && err.stack ? err.stack : err}\n`);
    process.exit(1);
  },
);
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
