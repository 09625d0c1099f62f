import { EventEmitter } from 'node:events';
import type { Server } from 'node:http';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { readTimeouts } from './read-timeouts.ts';

const TIMEOUTS = { headersTimeoutMs: 1_000, requestTimeoutMs: 2_000 };

function appWith() {
  const app = new Hono();
  app.use(readTimeouts(TIMEOUTS));
  app.get('/', (c) => c.text('ok'));
  return app;
}

/** What @hono/node-server passes as `c.env`: the Node request, whose socket knows its server. */
const nodeBindings = (server: Partial<Server>) => ({ incoming: { socket: { server } } });

/** A server with the timeouts Node gives it, and its events. */
const nodeServer = (timeouts: Partial<Server> = {}) => Object.assign(new EventEmitter(), timeouts) as unknown as Partial<Server>;

describe('readTimeouts', () => {
  it("sets the read timeouts on the server of the first request's connection", async () => {
    const server = nodeServer({ headersTimeout: 60_000, requestTimeout: 300_000 });
    const response = await appWith().request('/', {}, nodeBindings(server));
    expect(response.status).toBe(200);
    expect([server.headersTimeout, server.requestTimeout]).toEqual([1_000, 2_000]);
    // And what Node refuses itself gets a SPEC body (tests/slow-clients.system.test.ts).
    expect((server as unknown as EventEmitter).listenerCount('clientError')).toBe(1);
  });

  it('sets them once per server, leaving a later change alone', async () => {
    const app = appWith();
    const server = nodeServer();
    await app.request('/', {}, nodeBindings(server));
    server.requestTimeout = 5_000;
    await app.request('/', {}, nodeBindings(server));
    expect(server.requestTimeout).toBe(5_000);
  });

  it('passes requests that come without a Node connection (in process)', async () => {
    expect((await appWith().request('/')).status).toBe(200);
  });
});
