/**
 * `petstore mcp`'s line reader (src/commands/mcp/frames.ts) on real streams: frames split
 * across chunks and chunks holding many frames, an oversized frame skipped whatever its
 * chunks, its id read from its start or its end, a last frame without a newline, the end
 * of the input held until the requests delivered are answered, and error answers bounded.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineTransport } from '../../src/commands/mcp/frames.js';

/** A started transport over two PassThroughs, with what it delivered and what it wrote. */
async function open(maxFrameBytes = 1024, maxErrorBytes = 1024) {
  const input = new PassThrough();
  const output = new PassThrough();
  const written: Record<string, unknown>[] = [];
  const lines: string[] = [];
  let rest = '';
  output.on('data', (chunk: Buffer) => {
    const parts = (rest + chunk.toString('utf8')).split('\n');
    rest = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      written.push(JSON.parse(line) as Record<string, unknown>);
    }
  });
  const transport = new LineTransport({ input, output, maxFrameBytes, maxErrorBytes });
  const delivered: Record<string, unknown>[] = [];
  transport.onmessage = (message) => delivered.push(message);
  await transport.start();
  /** Settles once the stream events of what was written so far have run. */
  const settled = () => new Promise<void>((resolve) => setImmediate(resolve));
  return { input, transport, written, lines, delivered, settled };
}

const ping = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });

describe('LineTransport', () => {
  it('delivers frames split across chunks, and many frames of one chunk, in order', async () => {
    const t = await open();
    const text = `${ping(1)}\n${ping(2)}\n${ping(3)}\n`;
    for (const piece of [text.slice(0, 5), text.slice(5, 40), text.slice(40)]) t.input.write(piece);
    await t.settled();
    expect(t.delivered.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(t.written).toEqual([]);
  });

  it.each([
    ['its start', (pad: string) => `{"jsonrpc":"2.0","id":"head","method":"ping","params":{"x":"${pad}"}}`, 'head'],
    ['its end', (pad: string) => `{"jsonrpc":"2.0","method":"ping","params":{"x":"${pad}"},"id":"tail"}`, 'tail'],
    ['nowhere', (pad: string) => `{"jsonrpc":"2.0","method":"ping","params":{"x":"${pad}","id":"inner"}}`, null],
  ])(
    'an oversized frame, its id read from %s, sent in small chunks: answered -32600, the next delivered',
    async (_where, frame, id) => {
      const t = await open(1024);
      const text = `${frame('p'.repeat(20_000))}\n${ping('next')}\n`;
      for (let i = 0; i < text.length; i += 333) t.input.write(text.slice(i, i + 333));
      await t.settled();
      expect(t.written).toHaveLength(1);
      expect(t.written[0]).toMatchObject({ id, error: { code: -32600 } });
      expect(t.delivered.map((m) => m.id)).toEqual(['next']);
    },
  );

  it('a last frame without a newline is read at the end of the input', async () => {
    const t = await open();
    t.input.end(ping('last'));
    await t.settled();
    expect(t.delivered.map((m) => m.id)).toEqual(['last']);
  });

  it('the end of the input closes only once every request delivered is answered', async () => {
    const t = await open();
    let closed = false;
    void t.transport.closed.then(() => (closed = true));
    t.input.end(`${ping('a')}\n${ping('b')}\n`);
    await t.settled();
    expect(closed).toBe(false);
    await t.transport.send({ jsonrpc: '2.0', id: 'a', result: {} });
    await t.settled();
    expect(closed).toBe(false);
    await t.transport.send({ jsonrpc: '2.0', id: 'b', result: {} });
    await t.transport.closed;
  });

  it('a request its client cancelled does not hold the end (MCP answers no cancelled request)', async () => {
    const t = await open();
    t.input.end(`${ping('c')}\n{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}}\n`);
    await t.transport.closed;
    expect(t.written).toEqual([]);
  });

  it('at the end of the input, a request this side sent is answered for the client with an error', async () => {
    const t = await open();
    await t.transport.send({ jsonrpc: '2.0', id: 7, method: 'elicitation/create', params: {} });
    t.input.end();
    await t.settled();
    expect(t.delivered).toEqual([
      { jsonrpc: '2.0', id: 7, error: { code: -32000, message: "the client's input ended" } },
    ]);
  });

  it('an error answer over the cap has its long strings cut in the middle; a result is left whole', async () => {
    const t = await open(1024 * 1024, 1024);
    const message = `invalid status "${'s'.repeat(100_000)}": must be one of available, pending, sold`;
    await t.transport.send({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: message }], structuredContent: { error: { message } }, isError: true },
    });
    await t.transport.send({ jsonrpc: '2.0', id: 2, error: { code: -32602, message } });
    await t.transport.send({ jsonrpc: '2.0', id: 3, result: { text: 'r'.repeat(5000) } });
    await t.settled();
    expect(Buffer.byteLength(t.lines[0]!)).toBeLessThanOrEqual(1024);
    expect(Buffer.byteLength(t.lines[1]!)).toBeLessThanOrEqual(1024);
    expect(Buffer.byteLength(t.lines[1]!)).toBeGreaterThan(900);
    expect((t.written[1]!.error as { message: string }).message).toMatch(
      /^invalid status "s+…s+": must be one of available, pending, sold$/,
    );
    expect(t.lines[2]).toHaveLength(
      JSON.stringify({ jsonrpc: '2.0', id: 3, result: { text: 'r'.repeat(5000) } }).length,
    );
  });

  it('cuts never split a surrogate pair', async () => {
    const t = await open(1024 * 1024, 1024);
    await t.transport.send({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: '🐈'.repeat(5000) } });
    await t.settled();
    const text = (t.written[0]!.error as { message: string }).message;
    expect(text).toMatch(/^(🐈)+…(🐈)+$/u);
  });
});
