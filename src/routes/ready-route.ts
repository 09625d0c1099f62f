/**
 * @module `GET /ready`: readiness for load balancers and orchestrators — 200
 * when the service can serve, 503 otherwise, with one entry per dependency.
 * Open without a token, like `/health` (liveness), and never rate limited.
 *
 * Served by the service's middleware chain rather than as a Mastra API route: a Mastra route open
 * without a token (`requiresAuth: false`) is "framework-public", and Mastra runs no user middleware
 * for it (no trace id, no query guard), nor for any path it mistakes for it (`/READY`, `/ready/`).
 */
import type { MiddlewareHandler } from 'hono';
import { checkReadiness, type ReadinessCheck } from '../observability/readiness.ts';
import { SERVICE_PATHS } from '../contract/paths.ts';

/**
 * Goes ahead of the error envelope: a 503 here is the readiness answer itself, not an error body.
 * The route gate, later in the chain, answers the other methods with 405.
 */
export function createReadyRoute(checks: Record<string, ReadinessCheck>): { path: string; handler: MiddlewareHandler } {
  return {
    path: SERVICE_PATHS.ready,
    async handler(c, next) {
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
      const answer = await checkReadiness(checks);
      return c.json(answer, answer.status === 'ready' ? 200 : 503);
    },
  };
}
