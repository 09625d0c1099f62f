import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamSSE } from 'hono/streaming';
import { discardUnreadBody, leaveFramingToNode, type DiscardOptions } from './client-connection.ts';

const HEALTH = 'GET /health HTTP/1.1\r\nHost: x\r\n\r\n';

/** A route that refuses without reading, after copying the body's stream as Mastra's adapter does; one that reads it. */
function app(options?: DiscardOptions) {
  const hono = new Hono();
  hono.use(discardUnreadBody(options));
  hono.post('/refuse', (c) => {
    void c.req.raw.clone();
    return c.json({ error: 'unsupported' }, 415);
  });
  hono.post('/read', async (c) => c.json({ error: `bad ${(await c.req.text()).length}` }, 400));
  hono.get('/health', (c) => c.text('ok'));
  return hono;
}

async function listen(options?: DiscardOptions): Promise<{ server: ServerType; port: number }> {
  const server = serve({ fetch: app(options).fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

/** Sends `body` to `path` on a raw connection, then (after the answer) a second request on the same connection. */
function twoRequests(port: number, path: string, body: string): Promise<{ first: string; answers: number }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let sentSecond = false;
    const answers = () => received.match(/HTTP\/1\.1 \d{3} /g)?.length ?? 0;
    socket.on('data', (data) => {
      received += data.toString('latin1');
      if (answers() === 2) socket.destroy();
      else if (!sentSecond && received.includes('\r\n\r\n')) {
        sentSecond = true;
        // After node-server's 500 ms drain, as a client that reuses the connection later would.
        setTimeout(() => socket.writable && socket.write(HEALTH), 700);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve({ first: received.split('\r\n\r\n')[0]!, answers: answers() }));
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    setTimeout(() => socket.destroy(), 2_000);
  });
}

describe('discardUnreadBody', () => {
  let server: ServerType;
  let port: number;
  beforeAll(async () => ({ server, port } = await listen()));
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('reads and discards a body its answer left unread: the connection stays open and takes the next request', async () => {
    const { first, answers } = await twoRequests(port, '/refuse', 'x'.repeat(1024 * 1024));
    expect(first).toMatch(/^HTTP\/1\.1 415 /);
    expect(first).toMatch(/\r\nconnection: keep-alive/i);
    expect(answers).toBe(2);
  });

  it('an error answer to a body read to its end keeps the connection, which takes the next request', async () => {
    const { first, answers } = await twoRequests(port, '/read', 'x'.repeat(1024 * 1024));
    expect(first).toMatch(/^HTTP\/1\.1 400 /);
    expect(first).toMatch(/\r\nconnection: keep-alive/i);
    expect(answers).toBe(2);
  });

  it('leaves an in-process request (no connection) as it is', async () => {
    const response = await app().request('/refuse', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(415);
    expect(response.headers.get('connection')).toBeNull();
  });

  describe('within its bounds', () => {
    let bounded: { server: ServerType; port: number };
    beforeAll(async () => (bounded = await listen({ maxBytes: 64 * 1024, maxMs: 300 })));
    afterAll(() => new Promise((resolve) => bounded.server.close(resolve)));

    it('a body declared longer than it reads is not waited for: the answer says Connection: close', async () => {
      const { first, answers } = await twoRequests(bounded.port, '/refuse', 'x'.repeat(128 * 1024));
      expect(first).toMatch(/^HTTP\/1\.1 415 /);
      expect(first).toMatch(/\r\nconnection: close/i);
      expect(answers).toBe(1);
    });

    it('a client that stops sending the rest has its connection closed once the time is up', async () => {
      const socket = connect(bounded.port, '127.0.0.1');
      socket.on('error', () => {});
      let received = '';
      socket.on('data', (data) => (received += data.toString('latin1')));
      const startedAt = performance.now();
      socket.write('POST /refuse HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":');
      await new Promise((resolve) => socket.once('close', resolve));
      expect(received).toMatch(/^HTTP\/1\.1 415 /);
      expect(performance.now() - startedAt).toBeGreaterThanOrEqual(250);
      expect(performance.now() - startedAt).toBeLessThan(2_000);
    });
  });
});

describe('leaveFramingToNode', () => {
  let server: ServerType;
  let port: number;
  beforeAll(async () => {
    const hono = new Hono();
    hono.use(leaveFramingToNode);
    hono.get('/events', (c) => streamSSE(c, async (sse) => sse.writeSSE({ data: '{"type":"run-finish"}' })));
    server = serve({ fetch: hono.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  /** Everything the server sent for one request, once it closed the connection (or '' after 2 s, if it did not). */
  function exchange(request: string): Promise<string> {
    return new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      let received = '';
      socket.on('data', (data) => (received += data.toString('latin1')));
      const timer = setTimeout(() => {
        socket.destroy();
        resolve('');
      }, 2_000);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve(received);
      });
      socket.write(request);
    });
  }

  it('streams to an HTTP/1.0 client without chunks, and ends the stream by closing the connection', async () => {
    const answer = await exchange('GET /events HTTP/1.0\r\nHost: x\r\n\r\n');
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).not.toMatch(/transfer-encoding/i);
    expect(body).toBe('data: {"type":"run-finish"}\n\n');
  });

  it('closes the connection after the stream when the client asked to', async () => {
    const answer = await exchange('GET /events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nconnection: close/i);
    expect(answer).toMatch(/\r\ntransfer-encoding: chunked/i);
  });
});
