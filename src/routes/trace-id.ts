/** @module A fresh trace id for every request, and the request's log line. */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { withTraceId } from '../observability/request-trace.ts';
import './context.ts';

export const TRACE_HEADER = 'x-trace-id';

/**
 * @module Gives every request a fresh trace id: in the `x-trace-id` response header, in
 * the generate body's `traceId`, and in the request's log line. Always minted
 * here, never taken from the client, so it is unique per request.
 */
export const traceId: MiddlewareHandler = async (c, next) => {
  const id = randomUUID();
  c.set('traceId', id);
  c.header(TRACE_HEADER, id);
  const started = performance.now();
  await withTraceId(id, next);
  // One access line per request: who, what, how it ended — never message text, prompts or keys.
  const conversation = c.get('conversation');
  c.get('mastra').getLogger().info('request', {
    traceId: id,
    method: c.req.method,
    path: c.req.path,
    status: c.res.status,
    ms: Math.round(performance.now() - started),
    threadId: conversation?.threadId,
    resourceId: conversation?.resourceId,
  });
};
