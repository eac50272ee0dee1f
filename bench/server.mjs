// The bench's loopback Pet Store server: constant, precomputed answers so only the client
// is measured. GET /v1/pets -> 20 pets; POST /v1/pets -> 201 with one Pet. Prints
// `PORT <n>` on stdout once listening; exits when stdin closes or its parent is gone.
// `--delay-ms MIN-MAX`: each POST is answered after a random wait in that range (a server
// some way off, whose answers come back out of order); it then also counts the most POSTs
// it held at once and prints `MAX_IN_FLIGHT <n>` on stdout when asked by a line `stats`.
// `--get-delay-ms N`: each GET is answered after N ms (a real network's round trip).
import { createServer } from 'node:http';

const delayArg = process.argv.indexOf('--delay-ms');
const [minDelay, maxDelay] =
  delayArg === -1 ? [0, 0] : (process.argv[delayArg + 1] ?? '0-0').split('-').map((n) => Number(n));
const getDelayArg = process.argv.indexOf('--get-delay-ms');
const getDelay = getDelayArg === -1 ? 0 : Number(process.argv[getDelayArg + 1] ?? '0');
let pending = 0;
let mostPending = 0;

const pets = [];
const statuses = ['available', 'pending', 'sold'];
for (let i = 1; i <= 20; i++) pets.push({ id: i, name: `Pet ${i}`, categoryId: (i % 4) + 1, status: statuses[i % 3] });
const listBody = Buffer.from(JSON.stringify(pets));
const createdBody = Buffer.from(JSON.stringify({ id: 21, name: 'X', categoryId: 1, status: 'available' }));

const server = createServer((req, res) => {
  const send = (status, body) => {
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  };
  req.resume();
  req.on('end', () => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/v1/pets' && req.method === 'GET') {
      if (getDelay === 0) return send(200, listBody);
      return void setTimeout(() => send(200, listBody), getDelay);
    }
    if (path === '/v1/pets' && req.method === 'POST') {
      if (maxDelay === 0) return send(201, createdBody);
      pending++;
      mostPending = Math.max(mostPending, pending);
      setTimeout(
        () => {
          pending--;
          send(201, createdBody);
        },
        minDelay + Math.random() * (maxDelay - minDelay),
      );
      return;
    }
    send(404, Buffer.from('{"code":"not_found","message":"no such path","status":404}'));
  });
});
server.keepAliveTimeout = 1000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`PORT ${server.address().port}\n`);
});
process.stdin.setEncoding('utf8').on('data', (d) => {
  if (d.includes('stats')) {
    process.stdout.write(`MAX_IN_FLIGHT ${mostPending}\n`);
    mostPending = 0;
  }
});
process.stdin.on('end', () => process.exit(0));
// A parent killed outright may leave stdin open in a grandchild; a new parent id means orphaned.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 1000).unref();
