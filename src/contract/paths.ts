/** @module The service's paths: SPEC's operations, and the routes around them (threads, working memory, probes, documents). */
export const SPEC_PATHS = {
  generate: '/api/agents/companionAgent/generate',
  stream: '/api/agents/companionAgent/stream',
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
