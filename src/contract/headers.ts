/** @module The service's own HTTP headers: what a client reads on an answer, and what selects a wire format. */

/** Every answer's trace id: the generate body's `traceId`, and the request's log line. */
export const TRACE_HEADER = 'x-trace-id';

/** A stored turn's thread id, on its answer (on a failure too, once the thread is open). */
export const THREAD_HEADER = 'x-thread-id';

/** Selects Mastra's native protocol on the SPEC paths: Studio sends it, `@mastra/client-js` users set it. */
export const NATIVE_CLIENT_HEADER = 'x-mastra-client-type';
