import type { Mastra } from '@mastra/core/mastra';

/** @module What the Mastra server (mastra) and our trace-id middleware (traceId) put on every request's context. */
declare module 'hono' {
  interface ContextVariableMap {
    mastra: Mastra;
    traceId: string;
    /** The conversation a SPEC agent turn ran in, for the access log line. */
    conversation: { threadId?: string; resourceId?: string };
  }
}
