/** @module A fresh trace id for every request, and the request's log line. */
import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { TRACE_HEADER } from '../contract/headers.ts';
import { withTraceId } from '../observability/request-trace.ts';
import './context.ts';

/**
 * Gives every request a fresh trace id: in the `x-trace-id` response header, in
 * the generate body's `traceId`, and in the request's log line. Always minted
 * here, never taken from the client, so it is unique per request.
 */
export const traceId: MiddlewareHandler = async (c, next) => {
  const id = randomUUID();
  c.set('traceId', id);
  c.header(TRACE_HEADER, id);
  await withTraceId(id, next);
};

/**
 * One access line per request: who, what, how it ended — never message text, prompts or keys. Mastra's server
 * middleware runs outside its handler timeout, so a request whose handler that timeout answers gets its line
 * too (the middleware inside never sees its handler end). A request answered before `traceId` ran (`/health`,
 * Mastra's framework-public routes) has none.
 */
export const accessLog: MiddlewareHandler = async (c, next) => {
  const started = performance.now();
  await next();
  const id = c.get('traceId');
  if (!id) return;
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
