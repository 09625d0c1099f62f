/**
 * @module Read timeouts for the Node server, whichever entry started it. Mastra
 * passes none to Node, whose defaults give a client 300 s to trickle in one
 * request. `npm start` sets them as it starts the server (src/server.ts); the
 * built output and `npm run dev` start the server inside Mastra, out of the
 * service's reach, so this middleware sets them on the server of the first
 * request it sees (a connection knows its server). Node checks every open
 * connection against them every 30 s (its connectionsCheckingInterval), so from
 * then on a slow request is cut within 30 s of its limit, on every connection.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';

export interface ReadTimeouts {
  /** How long a client may take to send a request's headers. */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, body included. */
  requestTimeoutMs: number;
}

export function applyReadTimeouts(server: Server, timeouts: ReadTimeouts) {
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
}

/** `@hono/node-server` hands a handler the Node request as `c.env.incoming`; Node gives its socket the server. */
type NodeBindings = { incoming?: { socket?: Socket & { server?: Server } } } | undefined;

export function readTimeouts(timeouts: ReadTimeouts): MiddlewareHandler {
  const applied = new WeakSet<Server>();
  return async (c, next) => {
    const server = (c.env as NodeBindings)?.incoming?.socket?.server;
    if (server && !applied.has(server)) {
      applied.add(server);
      applyReadTimeouts(server, timeouts);
    }
    return next();
  };
}
