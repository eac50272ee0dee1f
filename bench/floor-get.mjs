// The floor for one request: a minimal node:http GET to the bench server, body read and
// printed. Usage: node bench/floor-get.mjs URL (an Authorization header from PETSTORE_API_KEY).
import { get } from 'node:http';

get(
  process.argv[2],
  { headers: { authorization: `Bearer ${process.env.PETSTORE_API_KEY ?? ''}`, accept: 'application/json' } },
  (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => process.stdout.write(Buffer.concat(chunks).toString('utf8') + '\n'));
  },
);
