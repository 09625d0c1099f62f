import { Hono, type MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import { errorBody, toApiError } from '../contract/errors.ts';
import { isLocalHostName, localHostGuard } from './host-guard.ts';

function guardedApp() {
  const app = new Hono<{ Variables: { traced: boolean } }>();
  // The service's error handler answers with the request's trace id; here, whether one was given.
  app.onError((error, c) => {
    const apiError = toApiError(error);
    const headers = { traced: String(c.get('traced') ?? false) };
    return Response.json(errorBody(apiError, { isDevelopment: false }), { status: apiError.status, headers });
  });
  const traceId: MiddlewareHandler = async (c, next) => {
    c.set('traced', true);
    await next();
  };
  app.use('*', localHostGuard(traceId));
  app.get('/threads', (c) => c.json({ threads: ['diary'] }));
  return app;
}

describe('localHostGuard', () => {
  const app = guardedApp();

  it.each(['http://localhost:4111', 'http://studio.localhost:4111', 'http://127.0.0.1:4111', 'http://[::1]:4111', 'http://LOCALHOST'])('serves %s', async (origin) => {
    const response = await app.request(`${origin}/threads`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ threads: ['diary'] });
  });

  it.each(['http://rebind.attacker.example:4111', 'http://localhost.attacker.example', 'http://127.0.0.1.nip.io:4111'])(
    'refuses %s (a page whose name was made to resolve to this machine) with 403 FORBIDDEN, before any route',
    async (origin) => {
      const response = await app.request(`${origin}/threads`);
      expect(response.status).toBe(403);
      expect(response.headers.get('traced')).toBe('true');
      const { hostname } = new URL(origin);
      expect(await response.json()).toEqual({
        error: `The development server answers only localhost and IP addresses, not ${hostname}.`,
        code: 'FORBIDDEN',
        details: { host: hostname },
      });
    },
  );

  it('reads names as the URL parser writes them', () => {
    expect(isLocalHostName(new URL('http://0x7f.1/').hostname)).toBe(true);
    expect(isLocalHostName(new URL('http://localhost./').hostname)).toBe(true);
    expect(isLocalHostName(new URL('http://attacker.example./').hostname)).toBe(false);
  });
});
