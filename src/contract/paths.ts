/** @module SPEC's operations, by path. */
export const SPEC_PATHS = {
  generate: '/api/agents/companionAgent/generate',
  stream: '/api/agents/companionAgent/stream',
  stt: '/stt',
} as const;
