/** @module The client's connection under a route: closing it outright, for a client that stopped reading. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** Closes the client's connection (on Node; an in-process request has none to close). */
export function dropConnection(c: Context) {
  (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket?.destroy();
}
