import type { MiddlewareHandler } from 'hono';
import { TrieRouter } from 'hono/router/trie-router';
import { methodNotAllowed, routeNotFound } from '../contract/errors.ts';
import { SERVICE_PATHS, SPEC_PATHS } from '../contract/paths.ts';

/**
 * @module Which routes the server answers. Mastra registers ~420 framework
 * routes on the service's port (memory of every user, model switching, the
 * Responses and A2A APIs, stored agents, workflows, logs…). In `production`
 * only the routes below pass and any other path is a JSON 404. In
 * `development` (`npm run dev`, bound to localhost) other paths pass on to the
 * framework, because Studio uses its routes (but `CLOSED_IN_EVERY_MODE`). In both modes a listed path with
 * another method is a JSON 405 with `Allow`. The README's route table lists exactly `PUBLIC_ROUTES` (a test
 * compares them).
 */
export type ServerMode = 'production' | 'development';

export interface RouteGateOptions {
  mode: ServerMode;
  /** Authentication is on: the server has several users, and `UNSCOPED_WITH_USERS` is closed too. */
  authenticated: boolean;
}

export interface PublicRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
}

export const PUBLIC_ROUTES: readonly PublicRoute[] = [
  // SPEC, and Mastra's native protocol for its own clients on the same paths (see agent-routes.ts).
  { method: 'POST', path: SPEC_PATHS.generate },
  { method: 'POST', path: SPEC_PATHS.stream },
  { method: 'POST', path: SPEC_PATHS.stt },
  { method: 'GET', path: SERVICE_PATHS.threads },
  { method: 'GET', path: `${SERVICE_PATHS.threads}/:threadId` },
  { method: 'PATCH', path: `${SERVICE_PATHS.threads}/:threadId` },
  { method: 'DELETE', path: `${SERVICE_PATHS.threads}/:threadId` },
  { method: 'GET', path: `${SERVICE_PATHS.threads}/:threadId/messages` },
  { method: 'GET', path: SERVICE_PATHS.workingMemory },
  { method: 'DELETE', path: SERVICE_PATHS.workingMemory },
  { method: 'GET', path: SERVICE_PATHS.health },
  { method: 'GET', path: SERVICE_PATHS.ready },
  { method: 'GET', path: SERVICE_PATHS.openapi },
  { method: 'GET', path: SERVICE_PATHS.docs },
  // The docs page's own script and its offline Swagger UI assets.
  { method: 'GET', path: `${SERVICE_PATHS.docs}/init.js` },
  { method: 'GET', path: `${SERVICE_PATHS.docs}/:asset` },
];

/**
 * Closed in development too: the agent-network route runs the agent on any
 * thread it is given, whoever owns it (this service has no network).
 */
export const CLOSED_IN_EVERY_MODE: readonly PublicRoute[] = [{ method: 'POST', path: '/api/agents/:agentId/network' }];

/**
 * Closed in development when authentication is on: Mastra's traces, logs and scores of every user's turns
 * (prompts and replies included), and its A2A task store (every user's messages and replies: `tasks/list`
 * filters by agent only, `tasks/get` by task id), which its routes answer to any authenticated caller,
 * unscoped. Without authentication the development server has one user, its developer, and Studio shows them.
 */
const UNSCOPED_WITH_USERS: readonly string[] = [
  '/api/observability/*',
  '/api/logs',
  '/api/logs/*',
  '/api/scores',
  '/api/scores/*',
  '/api/a2a/*',
];

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/**
 * Whether a route is closed in development, where Mastra's own routes are otherwise open: the gate answers it
 * 404, and the OpenAPI document leaves it out. A path may be a route's pattern (`/api/agents/:agentId/network`).
 */
export function closedRoutes(authenticated: boolean): (method: string, path: string) => boolean {
  const closed = new TrieRouter<true>();
  for (const route of CLOSED_IN_EVERY_MODE) closed.add(route.method, route.path, true);
  if (authenticated) for (const path of UNSCOPED_WITH_USERS) closed.add('ALL', path, true);
  return (method, path) => closed.match(method, path)[0].length > 0;
}

export function createRouteGate(options: RouteGateOptions): MiddlewareHandler {
  // Hono's strict router, as the app's own: `/threads/` is not `/threads`.
  const router = new TrieRouter<PublicRoute>();
  for (const route of PUBLIC_ROUTES) router.add(route.method, route.path, route);
  const allows = (method: string, path: string) => router.match(method, path)[0].length > 0;
  const isClosed = closedRoutes(options.authenticated);

  return async (c, next) => {
    const path = c.req.path;
    const method = routedMethod(c.req.method, c.req.header('access-control-request-method'));
    if (allows(method, path)) return next();
    const allowed = METHODS.filter((candidate) => allows(candidate, path));
    if (allowed.length > 0) throw methodNotAllowed(c.req.method, path, allowed);
    if (options.mode === 'development' && !isClosed(method, path)) return next();
    throw routeNotFound(c.req.method, path);
  };
}

/** A CORS preflight is judged as the request it announces; HEAD is answered by the GET route, as Hono does. */
function routedMethod(method: string, preflightFor: string | undefined): string {
  const announced = method === 'OPTIONS' && preflightFor ? preflightFor.toUpperCase() : method;
  return announced === 'HEAD' ? 'GET' : announced;
}

/**
 * Mastra's CORS answers every OPTIONS request with a 204, on any path, ahead of the service's middleware (and so
 * of the gate): run before it, this puts OPTIONS requests through the gate. A preflight for a served route passes
 * on to CORS; any other OPTIONS is the gate's 404 or 405.
 */
export function optionsThrough(gate: MiddlewareHandler, traceId: MiddlewareHandler): MiddlewareHandler {
  // With the trace id every other answer of the gate carries (and so its access line).
  return (c, next) =>
    c.req.method === 'OPTIONS'
      ? traceId(c, async () => {
          await gate(c, next);
        })
      : next();
}
