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
    /** The thread and owner a request is about (agent turns, the thread API), for its access log line. */
    conversation: { threadId?: string; resourceId?: string };
  }
}
