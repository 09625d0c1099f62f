/**
 * @module `GET /ready`: readiness for load balancers and orchestrators — 200
 * when the service can serve, 503 otherwise, with one entry per dependency.
 * Open without a token, like `/health` (liveness), and never rate limited.
 */
import { registerApiRoute } from '@mastra/core/server';
import { z } from 'zod';
import { readiness } from '../contract/readiness.ts';
import { checkReadiness, type ReadinessCheck } from '../observability/readiness.ts';

export const READY_PATH = '/ready';

export function createReadyRoute(checks: Record<string, ReadinessCheck>) {
  const body = { content: { 'application/json': { schema: z.toJSONSchema(readiness) as object } } };
  return registerApiRoute(READY_PATH, {
    method: 'GET',
    requiresAuth: false,
    openapi: {
      summary: 'Readiness: can the service serve requests now?',
      tags: ['Operations'],
      responses: { 200: { description: 'Every dependency works', ...body }, 503: { description: 'A dependency cannot work', ...body } },
    },
    handler: async (c) => {
      const answer = await checkReadiness(checks);
      return c.json(answer, answer.status === 'ready' ? 200 : 503);
    },
  });
}
