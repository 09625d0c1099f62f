/** @module The client's connection under a route: closing it outright, or after a refused request's answer. */
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';

/** `@hono/node-server` hands a handler the Node request as `c.env.incoming`; an in-process request has none. */
export function incomingOf(c: Context): IncomingMessage | undefined {
  return (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
}

/** Closes the client's connection (on Node; an in-process request has none to close). */
export function dropConnection(c: Context) {
  incomingOf(c)?.socket?.destroy();
}

/**
 * A request refused before its body was read to the end (a 413 or 415, a body sent to a route that takes none) leaves
 * the rest of that body on its connection. `@hono/node-server` drains it for at most 500 ms, but a body already handed
 * to a web stream (Mastra reads a copy of every request's body) is never read again: the connection was dropped half a
 * second after an answer that said keep-alive, and the client's next request on it failed. Such an answer says
 * `Connection: close` instead, as Node's own refusals do.
 */
export const closeAfterUnreadBody: MiddlewareHandler = async (c, next) => {
  await next();
  const incoming = incomingOf(c);
  if (c.res.status < 400 || !incoming || incoming.readableEnded) return;
  const bodyLeft = !incoming.complete || incoming.readableLength > 0;
  if (bodyLeft) c.res.headers.set('connection', 'close');
};

/**
 * Hono's SSE helper and Mastra's streams set `Transfer-Encoding: chunked` and `Connection: keep-alive` themselves:
 * Node then sent chunks to an HTTP/1.0 client, which cannot read them, and kept open a connection whose client had
 * asked to close it. Left to itself, Node frames a reply of unknown length as each client can read it.
 */
export const leaveFramingToNode: MiddlewareHandler = async (c, next) => {
  await next();
  const { headers } = c.res;
  if (headers.has('transfer-encoding')) headers.delete('transfer-encoding');
  if (headers.get('connection')?.toLowerCase() === 'keep-alive') headers.delete('connection');
};
