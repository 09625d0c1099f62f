/**
 * @module The readiness answer (`GET /ready`): one entry per dependency the
 * service needs to serve, and 200 only when every one of them can work.
 */
import { z } from 'zod';

const dependencyCheck = z.object({
  ok: z.boolean(),
  detail: z.string().optional().describe('What was checked, or why it cannot work and how to fix it'),
  latencyMs: z.number().optional().describe('How long a real round trip took'),
});

export const readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  checks: z.record(z.string(), dependencyCheck),
});

export type DependencyCheck = z.infer<typeof dependencyCheck>;
export type Readiness = z.infer<typeof readiness>;
