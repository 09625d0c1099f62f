import { Hono } from 'hono';
import { timeout } from 'hono/timeout';
import { describe, expect, it } from 'vitest';
import { methodNotAllowed } from '../contract/errors.ts';
import { createErrorHandlers } from './error-handler.ts';

function appWith(isDevelopment: boolean) {
  const errors = createErrorHandlers({ isDevelopment });
  const app = new Hono();
  app.onError(errors.onError);
  app.use('*', async (c, next) => {
    c.set('mastra', { getLogger: () => ({ error: () => {} }) } as never);
    c.header('x-trace-id', 'trace-1');
    await next();
  });
  app.use('*', errors.envelope);
  // What Mastra's routes answer by themselves, bypassing onError.
  app.post('/framework/bad-json', (c) =>
    c.json({ error: 'Invalid request body', issues: [{ field: 'body', message: `Unexpected token 'Y', "You are the Friend…" is not valid JSON` }] }, 400),
  );
  app.get('/api/agents/companionAgent/framework-upstream', (c) =>
    c.json({ error: 'fetch failed: http://10.0.0.7:11434/v1/chat/completions', stack: 'Error: at /srv/app/node_modules/x.js:1:1' }, 500),
  );
  app.get('/api/memory/framework-store', (c) => c.json({ error: 'SQLITE_FULL at /srv/app/node_modules/libsql/index.js' }, 500));
  app.get('/framework/text', (c) => c.text('Payload Too Large', 413));
  app.get('/ours', () => {
    throw methodNotAllowed('GET', '/ours', ['POST']);
  });
  app.get('/ok', (c) => c.json({ error: 'not an error: a 200 is passed through' }));
  return app;
}

describe('error envelope', () => {
  const app = appWith(false);

  it.each([
    ['POST', '/framework/bad-json', 400, 'INVALID_REQUEST'],
    ['GET', '/api/agents/companionAgent/framework-upstream', 500, 'MODEL_ERROR'],
    ['GET', '/api/memory/framework-store', 500, 'MEMORY_NOT_INITIALIZED'],
    ['GET', '/framework/text', 413, 'INVALID_REQUEST'],
    ['GET', '/nowhere', 404, 'NOT_FOUND'],
  ])("replaces a framework route's own %s %s error with a SPEC body from its status", async (method, path, status, code) => {
    const response = await app.request(path, { method });
    const text = await response.text();
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(response.headers.get('x-trace-id')).toBe('trace-1');
    expect(JSON.parse(text)).toEqual({ error: expect.stringContaining(`status ${status}`), code, details: {} });
    for (const leak of ['You are the Friend', '10.0.0.7', 'node_modules', 'stack']) expect(text).not.toContain(leak);
  });

  it('keeps SPEC bodies and their headers as they are', async () => {
    const response = await app.request('/ours');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(await response.json()).toEqual({
      error: 'GET is not allowed on /ours; use POST.',
      code: 'INVALID_REQUEST',
      details: { method: 'GET', path: '/ours', allowed: ['POST'] },
    });
  });

  it('leaves successful answers alone', async () => {
    expect(await (await app.request('/ok')).json()).toEqual({ error: 'not an error: a 200 is passed through' });
  });
});

describe("Mastra's handler timeout for every route (server.timeout, Hono's timeout middleware)", () => {
  const errors = createErrorHandlers({ isDevelopment: false });
  const app = new Hono();
  app.onError(errors.onError);
  app.use('*', timeout(20), async (c, next) => {
    c.set('mastra', { getLogger: () => ({ error: () => {} }) } as never);
    await next();
  });
  app.post('*', () => new Promise<Response>(() => {}));

  it.each([
    ['/stt', 'AUDIO_PROCESSING_ERROR'],
    ['/threads/t-1', 'MEMORY_NOT_INITIALIZED'],
    ['/api/agents/companionAgent/generate', 'MODEL_ERROR'],
  ])('answers 504 on %s with the code of the operation it stopped, %s', async (path, code) => {
    const response = await app.request(path, { method: 'POST' });
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({ error: 'The request took longer than the server allows; it was stopped.', code, details: {} });
  });
});
