/**
 * @module Read timeouts for the Node server, whichever entry started it. Mastra
 * passes none to Node, whose defaults give a client 300 s to trickle in one
 * request. `npm start` sets them as it starts the server (src/server.ts); the
 * built output and `npm run dev` start the server inside Mastra, out of the
 * service's reach, so this middleware sets them on the server of the first
 * request it sees (a connection knows its server). Node checks every open
 * connection against them every 30 s (its connectionsCheckingInterval), so from
 * then on a slow request is cut within 30 s of its limit, on every connection.
 * What Node refuses itself, before any handler (a slow request's 408, headers
 * too large, a request it cannot parse), is answered with a SPEC body too:
 * Node's own answers have none.
 */
import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import { errorBody, unreadableRequest } from '../contract/errors.ts';
import { incomingOf } from '../routes/client-connection.ts';

export interface ReadTimeouts {
  /** How long a client may take to send a request's headers. */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, body included. */
  requestTimeoutMs: number;
}

export function applyReadTimeouts(server: Server, timeouts: ReadTimeouts) {
  server.headersTimeout = timeouts.headersTimeoutMs;
  server.requestTimeout = timeouts.requestTimeoutMs;
  server.on('clientError', answerUnreadableRequest);
}

/** Node's own answer, with the SPEC body: only while no response has started on the connection, as Node does. */
function answerUnreadableRequest(error: NodeJS.ErrnoException, socket: Socket & { _httpMessage?: ServerResponse }) {
  if (!socket.writable || socket._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const apiError = unreadableRequest(error.code);
  const body = JSON.stringify(errorBody(apiError, { isDevelopment: false }));
  const head = [
    `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
}


export function readTimeouts(timeouts: ReadTimeouts): MiddlewareHandler {
  const applied = new WeakSet<Server>();
  return async (c, next) => {
    // Node gives a connection's socket its server.
    const server = (incomingOf(c)?.socket as (Socket & { server?: Server }) | undefined)?.server;
    if (server && !applied.has(server)) {
      applied.add(server);
      applyReadTimeouts(server, timeouts);
    }
    return next();
  };
}
