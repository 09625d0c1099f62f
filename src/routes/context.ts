/** @module What the Mastra server (mastra, requestContext, abortSignal) and our trace-id middleware (traceId) put on every request context. */
import type { Mastra } from '@mastra/core/mastra';
import type { RequestContext } from '@mastra/core/request-context';

declare module 'hono' {
  interface ContextVariableMap {
    mastra: Mastra;
    requestContext: RequestContext;
    traceId: string;
    /** Mastra's handlers take their abort signal from here; a native turn puts its own (turn.ts). */
    abortSignal: AbortSignal;
    /** The conversation a SPEC agent turn ran in, for the access log line. */
    conversation: { threadId?: string; resourceId?: string };
  }
}
