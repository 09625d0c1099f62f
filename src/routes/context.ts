/**
 * @module Types what the Mastra server (`mastra`) and our trace-id middleware
 * (`traceId`) put on every request's context.
 */
import type { Mastra } from '@mastra/core/mastra';

declare module 'hono' {
  interface ContextVariableMap {
    mastra: Mastra;
    traceId: string;
  }
}
