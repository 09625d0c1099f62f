/** @module The service's paths: SPEC's operations, and the routes around them (threads, working memory, probes, documents). */

/** The agent's id, as SPEC's paths name it (and a thread record's `agentId`). */
export const COMPANION_AGENT_ID = 'companionAgent';

export const SPEC_PATHS = {
  generate: `/api/agents/${COMPANION_AGENT_ID}/generate`,
  stream: `/api/agents/${COMPANION_AGENT_ID}/stream`,
  stt: '/stt',
} as const;

export const SERVICE_PATHS = {
  threads: '/threads',
  workingMemory: '/working-memory',
  /** Mastra's own liveness route, answered before any middleware. */
  health: '/health',
  ready: '/ready',
  openapi: '/api/openapi.json',
  docs: '/docs',
} as const;

/** The route families the rate limit counts: agent turns, `/stt`, the thread API and the working-memory API. */
export function isRateLimitedRoute(method: string, path: string): boolean {
  if (path === SPEC_PATHS.stt || path === SERVICE_PATHS.workingMemory) return true;
  if (path === SERVICE_PATHS.threads || path.startsWith(`${SERVICE_PATHS.threads}/`)) return true;
  return method === 'POST' && path.startsWith('/api/agents/');
}
