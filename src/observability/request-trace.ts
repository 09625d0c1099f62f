/**
 * @module The trace id of the request being served, wherever the code runs on its behalf (Mastra's agent,
 * its handlers, the tools): the logger adds it to every line, so a failure Mastra logs itself leads to its
 * request like the service's own lines do.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const requestTrace = new AsyncLocalStorage<string>();

export function withTraceId<T>(traceId: string, serve: () => T): T {
  return requestTrace.run(traceId, serve);
}

export function currentTraceId(): string | undefined {
  return requestTrace.getStore();
}

/**
 * Runs `run` outside any request's trace: for what a connection reports after the request that opened it is gone (its
 * loss, an idle client's error), which would otherwise carry that request's trace id.
 */
export function outsideRequests<T>(run: () => T): T {
  return requestTrace.exit(run);
}
