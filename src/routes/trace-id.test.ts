import { Hono } from 'hono';
import { timeout } from 'hono/timeout';
import { expect, it, vi } from 'vitest';
import { accessLog, traceId } from './trace-id.ts';

/** As Mastra's server composes them: its server middleware, its handler timeout, then the service's middleware. */
function appWithLogger(handlerTimeoutMs = 1_000) {
  const info = vi.fn();
  const app = new Hono();
  app.use('*', async (c, next) => {
    c.set('mastra', { getLogger: () => ({ info }) } as never);
    await next();
  });
  app.use('*', accessLog);
  app.get('/health', (c) => c.json({ success: true }));
  app.use('*', timeout(handlerTimeoutMs));
  app.use('*', traceId);
  app.get('/echo', (c) => c.json({ traceId: c.get('traceId') }));
  app.get('/hang', () => new Promise<Response>(() => {}));
  return { app, info };
}

it('gives each request a fresh id, in the header, on the context and in the log line', async () => {
  const { app, info } = appWithLogger();
  const first = await app.request('/echo', { headers: { 'x-trace-id': 'chosen-by-client' } });
  const second = await app.request('/echo');
  const firstId = first.headers.get('x-trace-id');

  expect(firstId).toMatch(/^[0-9a-f-]{36}$/);
  expect(firstId).not.toBe('chosen-by-client');
  expect(await first.json()).toEqual({ traceId: firstId });
  expect(second.headers.get('x-trace-id')).not.toBe(firstId);
  expect(info).toHaveBeenCalledWith('request', expect.objectContaining({ traceId: firstId, method: 'GET', path: '/echo', status: 200 }));
});

it("writes the line of a request whose handler the server's timeout answers, and none for one answered before the trace id", async () => {
  const { app, info } = appWithLogger(50);
  const hung = await app.request('/hang');
  expect(hung.status).toBe(504);
  await app.request('/health');
  expect(info.mock.calls).toEqual([['request', expect.objectContaining({ method: 'GET', path: '/hang', status: 504 })]]);
});
