import { Hono } from 'hono';
import { expect, it, vi } from 'vitest';
import { traceId } from './trace-id.ts';

function appWithLogger() {
  const info = vi.fn();
  const app = new Hono();
  app.use('*', async (c, next) => {
    c.set('mastra', { getLogger: () => ({ info }) } as never);
    await next();
  });
  app.use('*', traceId);
  app.get('/echo', (c) => c.json({ traceId: c.get('traceId') }));
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
