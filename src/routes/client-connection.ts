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

export interface DiscardOptions {
  /** The most of a refused body read after its answer; a body declared longer closes its connection at once. */
  maxBytes: number;
  /** How long the client has to send the rest; then its connection is closed. */
  maxMs: number;
}

const DISCARD_DEFAULTS: DiscardOptions = { maxBytes: 64 * 1024 * 1024, maxMs: 10_000 };

/**
 * A request refused before its body was read to the end (a 413 or 415, a body sent to a route that takes none) leaves
 * the rest of that body on its connection, and its client still sending it. Closed then, the connection is reset under
 * a client that is still writing, and most clients (`fetch`, browsers) report the reset instead of the answer they were
 * sent. `@hono/node-server` drains such a body for at most 500 ms, but not one already handed to a web stream (Mastra
 * copies every request's body into one), which pauses it for good. So the rest is read here and thrown away, at most
 * `maxBytes` within `maxMs` (then the connection is closed), and the connection then takes the client's next request.
 * A body declared longer than `maxBytes` is not waited for: its answer says `Connection: close`, as Node's own
 * refusals do.
 */
export function discardUnreadBody(options: DiscardOptions = DISCARD_DEFAULTS): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const incoming = incomingOf(c);
    if (c.res.status < 400 || !incoming || incoming.readableEnded) return;
    if (incoming.complete && incoming.readableLength === 0) return;
    if (Number(incoming.headers['content-length']) > options.maxBytes) c.res.headers.set('connection', 'close');
    else discardRest(incoming, options);
  };
}

function discardRest(incoming: IncomingMessage, { maxBytes, maxMs }: DiscardOptions) {
  let bytes = 0;
  const stop = () => {
    clearTimeout(timer);
    incoming.off('data', count);
  };
  const giveUp = () => {
    stop();
    incoming.socket?.destroy();
  };
  const count = (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > maxBytes) giveUp();
  };
  const timer = setTimeout(giveUp, maxMs);
  timer.unref();
  // The web stream that held the body is read no more: its listener would pause the body again at once.
  incoming.removeAllListeners('data');
  incoming.on('data', count);
  incoming.once('end', stop);
  incoming.once('close', stop);
  incoming.resume();
}

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
