import { once } from 'node:events';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseConfig } from '../mastra.config.ts';
import { createApp } from '../src/app.ts';
import { GENERATE } from './fixtures/companion-harness.ts';
import { startService, type RunningService } from './fixtures/service.ts';

// Node's defaults give a client 300 s to send one request. Here: 1 s for the headers, 2 s for the whole request.
// Node checks these limits every 30 s, so a trickling client is cut between 2 and 32 s in: this test takes ~30 s.
let service: RunningService;
beforeAll(async () => {
  service = await startService({ DATABASE_URL: 'none', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' });
});
afterAll(() => service.stop());

/** Opens a connection, sends `head`, then one byte of `trickle` every 200 ms; resolves with what the server answered once it closes. */
function trickle(head: string, trickle: string) {
  const { port } = new URL(service.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(head);
  let sent = 0;
  const timer = setInterval(() => {
    if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++]!);
  }, 200);
  return new Promise<{ answer: string; sent: number }>((resolve) => {
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, sent });
    });
  });
}

it('cuts a client that trickles its body or its headers byte by byte, with 408', async () => {
  const body = JSON.stringify({ messages: [{ role: 'user', content: 'x'.repeat(1_000) }] });
  const [slowBody, slowHeaders] = await Promise.all([
    trickle(`POST ${GENERATE} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, body),
    trickle('', `POST ${GENERATE} HTTP/1.1\r\nHost: x\r\nX-Padding: ${'x'.repeat(1_000)}\r\n\r\n`),
  ]);
  for (const { answer, sent } of [slowBody, slowHeaders]) {
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ code: 'INVALID_REQUEST', details: {} });
    // Cut long before the whole request was sent (over 1,000 bytes at 5 a second).
    expect(sent).toBeLessThan(200);
  }
}, 60_000);

it('answers what Node cannot read as HTTP with a SPEC body: a malformed request 400, headers too large 431', async () => {
  const [malformed, tooLarge] = await Promise.all([
    trickle('GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', ''),
    trickle(`GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: ${'x'.repeat(20_000)}\r\n\r\n`, ''),
  ]);
  for (const [{ answer }, status] of [[malformed, 400], [tooLarge, 431]] as const) {
    expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(answer).toContain('Content-Type: application/json');
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ error: expect.any(String), code: 'INVALID_REQUEST', details: {} });
  }
});

// The built output and `npm run dev` start the Node server inside Mastra (createNodeServer), where src/server.ts
// never runs: the app itself gives that server its limits, from the first request on, a health probe included.
it('gives a server Mastra started the same limits once a /health probe has come in', async () => {
  const { app, close } = await createApp(parseConfig({ DATABASE_URL: 'none', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' }));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  try {
    await once(server, 'listening');
    expect([server.headersTimeout, server.requestTimeout]).toEqual([60_000, 300_000]);
    const { port } = server.address() as AddressInfo;
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    expect([server.headersTimeout, server.requestTimeout]).toEqual([1_000, 2_000]);
  } finally {
    server.close();
    await close();
  }
});

/** Sends one request with `body`, and a second on the same connection once the first is answered: the answers. */
function refusedThenNext(method: string, path: string, contentType: string, body: string) {
  const { port } = new URL(service.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  let answer = '';
  socket.on('data', (chunk: Buffer) => {
    const first = !answer;
    answer += chunk.toString('latin1');
    if (answer.match(/HTTP\/1\.1 \d{3} /g)!.length === 2) socket.destroy();
    else if (first && !answer.match(/\r\nconnection: close/i)) setTimeout(() => socket.writable && socket.write('GET /health HTTP/1.1\r\nHost: x\r\n\r\n'), 700);
  });
  socket.on('error', () => {});
  const timer = setTimeout(() => socket.destroy(), 3_000);
  return new Promise<string[]>((resolve) =>
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer.split(/(?=HTTP\/1\.1 \d{3} )/).map((response) => response.split('\r\n\r\n')[0]!));
    }),
  );
}

it('reads and discards the rest of a body it refused unread, and the connection takes the next request', async () => {
  const large = JSON.stringify({ title: 'a', pad: 'x'.repeat(1_100 * 1024) });
  for (const [method, path] of [['PATCH', '/threads/t1?resourceId=u1'], ['POST', GENERATE]]) {
    const answers = await refusedThenNext(method!, path!, 'text/plain', large);
    expect(answers.map((head) => head.slice(0, 12)), path).toEqual(['HTTP/1.1 415', 'HTTP/1.1 200']);
    expect(answers[0]).toMatch(/\r\nconnection: keep-alive/i);
  }
  // A body refused once read to its end leaves nothing on the connection: it goes on.
  const answers = await refusedThenNext('POST', GENERATE, 'application/json', JSON.stringify({ messages: [], pad: 'x'.repeat(100 * 1024) }));
  expect(answers.map((head) => head.slice(0, 12))).toEqual(['HTTP/1.1 400', 'HTTP/1.1 200']);
});

// Closed under a client still sending, the connection was reset, and fetch reported EPIPE instead of the answer.
it('answers a client still sending the upload it refuses (fetch): 413 for a file over the limit, 400 for a query', async () => {
  const upload = (megabytes: number) => {
    const form = new FormData();
    form.append('audio', new Blob([new Uint8Array(megabytes * 1024 * 1024)], { type: 'audio/wav' }), 'memo.wav');
    return form;
  };
  for (const megabytes of [27, 40]) {
    const response = await fetch(`${service.url}/stt`, { method: 'POST', body: upload(megabytes) });
    expect(response.status, `${megabytes} MiB`).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'INVALID_REQUEST', details: { maxBytes: 25 * 1024 * 1024 } });
  }
  const response = await fetch(`${service.url}/stt?language=en`, { method: 'POST', body: upload(5) });
  expect(response.status).toBe(400);
  expect(await response.json()).toMatchObject({ code: 'INVALID_REQUEST', details: { field: 'query', refused: ['language'] } });
});

/** Sends a request's head and the first `sent` bytes of its body, never the rest: the head of the answer, or '' if none came. */
function answerBeforeTheBodyEnds(head: string, sent: Buffer) {
  const { port } = new URL(service.url);
  const socket = connect(Number(port), '127.0.0.1');
  socket.write(head);
  socket.write(sent);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.on('error', () => {});
  const timer = setTimeout(() => socket.destroy(), 3_000);
  return new Promise<string>((resolve) =>
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(answer.split('\r\n\r\n')[0]!);
    }),
  );
}

// Mastra looks into every JSON body for a requestContext, on any path and before authentication: it read the whole
// body first (a client announcing 100 MiB was never answered, and its body was held in memory). It now stops at the limit.
it('answers a JSON body over 1 MiB without waiting for the rest of it, on any path, declared or chunked', async () => {
  const declared = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n`;
  const chunked = (path: string) => `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
  const twoMiB = 2 * 1024 * 1024;
  const oneChunk = Buffer.from(`${twoMiB.toString(16)}\r\n{"messages":"${'x'.repeat(twoMiB - 14)}\r\n`);
  const answers = await Promise.all([
    answerBeforeTheBodyEnds(declared(GENERATE), Buffer.alloc(64 * 1024, 'x')),
    answerBeforeTheBodyEnds(declared('/nowhere'), Buffer.alloc(64 * 1024, 'x')),
    answerBeforeTheBodyEnds(chunked(GENERATE), oneChunk),
    answerBeforeTheBodyEnds(chunked('/nowhere'), oneChunk),
  ]);
  expect(answers.map((answer) => answer.slice(0, 12))).toEqual(['HTTP/1.1 413', 'HTTP/1.1 404', 'HTTP/1.1 413', 'HTTP/1.1 404']);
  // A body declared longer than the server reads after its answer (64 MiB) is not waited for.
  for (const answer of answers.slice(0, 2)) expect(answer).toMatch(/\r\nconnection: close/i);
});
