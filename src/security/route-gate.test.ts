import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { errorBody, toApiError } from '../contract/errors.ts';
import { createRouteGate, PUBLIC_ROUTES, type ServerMode } from './route-gate.ts';

/** The gate in front of an app that answers every method on every path, as Mastra's ~420 routes would. */
function gatedApp(mode: ServerMode, authenticated = false) {
  const app = new Hono();
  app.onError((error) => {
    const apiError = toApiError(error);
    return Response.json(errorBody(apiError, { isDevelopment: false }), { status: apiError.status, headers: apiError.headers });
  });
  app.use('*', createRouteGate({ mode, authenticated }));
  app.all('*', (c) => c.text('framework route'));
  return app;
}

const concrete = (path: string) => path.replace(':threadId', 't-1');

describe('createRouteGate in production', () => {
  const app = gatedApp('production');

  it.each(PUBLIC_ROUTES.map((route) => [route.method, concrete(route.path)]))('passes %s %s', async (method, path) => {
    expect((await app.request(path, { method })).status).toBe(200);
  });

  it('passes HEAD where GET is allowed', async () => {
    expect((await app.request('/health', { method: 'HEAD' })).status).toBe(200);
  });

  it('judges a CORS preflight as the request it announces, and any other OPTIONS as a method of its own', async () => {
    const preflight = (path: string, method: string) => app.request(path, { method: 'OPTIONS', headers: { origin: 'https://app.example', 'access-control-request-method': method } });
    expect((await preflight('/api/agents/companionAgent/generate', 'POST')).status).toBe(200);
    expect((await preflight('/threads/t-1', 'patch')).status).toBe(200);
    expect((await preflight('/threads', 'HEAD')).status).toBe(200);
    expect((await preflight('/threads', 'DELETE')).status).toBe(405);
    expect((await preflight('/api/v1/responses', 'POST')).status).toBe(404);
    const plain = await app.request('/threads', { method: 'OPTIONS' });
    expect(plain.status).toBe(405);
    expect(plain.headers.get('allow')).toBe('GET');
    expect((await app.request('/nope', { method: 'OPTIONS' })).status).toBe(404);
  });

  it.each([
    ['GET', '/api/memory/threads?agentId=companionAgent'],
    ['GET', '/api/agents'],
    ['GET', '/api/agents/companionAgent'],
    ['POST', '/api/agents/companionAgent/model'],
    ['POST', '/api/agents/companionAgent/generate/vnext'],
    ['POST', '/api/agents/companionAgent/stream-until-idle'],
    ['POST', '/api/v1/responses'],
    ['POST', '/api/a2a/companionAgent'],
    ['POST', '/api/stored/agents'],
    ['GET', '/threads/'],
    ['GET', '/threads/t-1/messages/extra'],
    ['GET', '/'],
    ['GET', '/swagger-ui'],
  ])('answers %s %s with a JSON 404', async (method, path) => {
    const response = await app.request(path, { method });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: `No route ${method} ${path.split('?')[0]}.`,
      code: 'NOT_FOUND',
      details: { method, path: path.split('?')[0] },
    });
  });

  it.each([
    ['GET', '/api/agents/companionAgent/generate', 'POST'],
    ['PUT', '/api/agents/companionAgent/stream', 'POST'],
    ['POST', '/threads', 'GET'],
    ['PUT', '/threads/t-1', 'GET, PATCH, DELETE'],
    ['DELETE', '/health', 'GET'],
  ])('answers %s %s with a JSON 405 and Allow: %s', async (method, path, allow) => {
    const response = await app.request(path, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(await response.json()).toMatchObject({ code: 'INVALID_REQUEST', details: { method, path, allowed: allow.split(', ') } });
  });
});

describe('createRouteGate in development', () => {
  const app = gatedApp('development');

  it("passes the framework's routes for Studio", async () => {
    for (const [method, path] of [['GET', '/api/memory/threads'], ['GET', '/api/agents'], ['GET', '/agents/companionAgent/chat'], ['POST', '/api/agents/companionAgent/model']]) {
      expect((await app.request(path, { method })).status).toBe(200);
    }
  });

  it("closes the agent-network route, which runs the agent on anyone's thread", async () => {
    const response = await app.request('/api/agents/companionAgent/network', { method: 'POST' });
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe('NOT_FOUND');
  });

  it('still answers a wrong method on a listed path with 405', async () => {
    const response = await app.request('/api/agents/companionAgent/generate');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('createRouteGate in development with authentication on', () => {
  const UNSCOPED = [
    ['GET', '/api/observability/traces'],
    ['GET', '/api/observability/traces/t-1'],
    ['POST', '/api/observability/traces/query'],
    ['GET', '/api/logs'],
    ['GET', '/api/logs/run-1'],
    ['GET', '/api/scores/scorers'],
    ['POST', '/api/a2a/companionAgent'],
  ];

  it.each(UNSCOPED)("closes %s %s, which answer every user's turns to any caller", async (method, path) => {
    const response = await gatedApp('development', true).request(path, { method });
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe('NOT_FOUND');
  });

  it('leaves them open without authentication, where the developer is the one user, and the rest open either way', async () => {
    for (const [method, path] of UNSCOPED) expect((await gatedApp('development').request(path, { method })).status).toBe(200);
    expect((await gatedApp('development', true).request('/api/memory/threads')).status).toBe(200);
  });
});
