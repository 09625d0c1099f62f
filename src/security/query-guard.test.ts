import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { errorBody, toApiError } from '../contract/errors.ts';
import { queryGuard } from './query-guard.ts';

function guardedApp() {
  const app = new Hono();
  app.onError((error) => {
    const apiError = toApiError(error);
    return Response.json(errorBody(apiError, { isDevelopment: false }), { status: apiError.status });
  });
  app.use('*', queryGuard);
  app.get('/echo', (c) => c.json(c.req.queries()));
  return app;
}

describe('queryGuard', () => {
  const app = guardedApp();

  it.each([
    '__proto__[x]=1',
    'constructor[prototype][x]=1',
    'a[__proto__]=1',
    'a[constructor]=1',
    'prototype=1',
    'a.__proto__.x=1',
    '%5F%5Fproto%5F%5F%5Bx%5D=1',
    '__proto%5F%5F[x]=1',
    'ok=1&constructor=2',
    'a[b][prototype]',
  ])('refuses ?%s with 400 INVALID_REQUEST naming the parameter', async (query) => {
    const response = await app.request(`/echo?${query}`);
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toEqual({ error: expect.stringMatching(/^Query parameter ".*" is not allowed\.$/), code: 'INVALID_REQUEST', details: { parameter: expect.any(String) } });
    expect(body.error).toMatch(/__proto__|constructor|prototype/);
  });

  it.each(['resourceId=u-1&page=0', 'orderBy[field]=createdAt', 'proto=1&constructors=2&__proto=3', 'bad=%E0%A4%A', 'q=__proto__'])(
    'passes ?%s',
    async (query) => {
      const response = await app.request(`/echo?${query}`);
      expect(response.status).toBe(200);
    },
  );
});
