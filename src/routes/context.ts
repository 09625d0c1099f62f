import type { Mastra } from '@mastra/core/mastra';

// What the Mastra server (mastra) and our trace-id middleware (traceId) put on every request's context.
declare module 'hono' {
  interface ContextVariableMap {
    mastra: Mastra;
    traceId: string;
  }
}
