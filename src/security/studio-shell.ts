/**
 * @module Mastra Studio's shell under `npm run dev`: its page and static files,
 * which Mastra serves for any GET outside `/api`. The shell is the same public
 * bundle for everyone and holds no data: Studio reads everything through `/api`,
 * sending the headers its user saved in it. So with auth on the shell loads
 * without a token, sees the API's 401s and shows its own *Authentication
 * Required* form, where the user gives it one (Mastra's own auth guards only
 * `/api/*` for the same reason). The service's own routes outside `/api`
 * (`/threads`, `/stt`, `/docs`, …) are never part of the shell.
 */
import { TrieRouter } from 'hono/router/trie-router';
import type { PublicRoute } from './route-gate.ts';

type RequestMatcher = (method: string, path: string) => boolean;

const API_PREFIX = '/api';

export function studioShell(serviceRoutes: readonly PublicRoute[]): RequestMatcher {
  // Hono's strict router, as the app's own: a path it routes to the service, with any method, is the service's.
  const router = new TrieRouter<true>();
  for (const route of serviceRoutes) router.add('ALL', route.path, true);
  const isServiceRoute = (path: string) => router.match('GET', path)[0].length > 0;
  const isApi = (path: string) => path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
  return (method, path) => (method === 'GET' || method === 'HEAD') && !isApi(path) && !isServiceRoute(path);
}
