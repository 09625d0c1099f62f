import type { Context } from 'hono';

/**
 * @module Replaces the JSON body of the response a later handler produced,
 * keeping its other headers (trace id, CORS). Hono copies the old response's
 * headers onto a new one, and the old `content-length` would be wrong.
 */
export function replaceJsonBody(c: Context, status: number, body: unknown) {
  const headers = new Headers(c.res.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  c.res = undefined;
  c.res = new Response(JSON.stringify(body), { status, headers });
}
