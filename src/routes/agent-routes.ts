import type { Context, MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { toGenerateResponse } from '../contract/generate-response.ts';
import { toApiError } from '../contract/errors.ts';
import { prepareAgentCall } from './agent-call.ts';
import { pipeSpecEvents, type StreamTiming } from './spec-stream.ts';
import './context.ts';

/**
 * @module SPEC's `/generate` and `/stream` live on the same paths as Mastra's stock
 * agent routes. Mastra's own clients keep the native protocol: Studio sends
 * `x-mastra-client-type: studio`, and `@mastra/client-js` users set that header
 * through the client's `headers` option (see README). Everyone else gets SPEC.
 */
export const NATIVE_CLIENT_HEADER = 'x-mastra-client-type';
export const THREAD_HEADER = 'x-thread-id';

const AGENT_PATH = '/api/agents/companionAgent';

function specOnly(handler: (c: Context) => Promise<Response>): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method !== 'POST' || c.req.header(NATIVE_CLIENT_HEADER)) return next();
    return handler(c);
  };
}

export interface AgentRouteOptions {
  modelConfigured: boolean;
  stream: StreamTiming;
}

export function createAgentRoutes(routeOptions: AgentRouteOptions) {
  return [
    { path: `${AGENT_PATH}/generate`, handler: specOnly((c) => generate(c, routeOptions)) },
    { path: `${AGENT_PATH}/stream`, handler: specOnly((c) => stream(c, routeOptions)) },
  ];
}

async function generate(c: Context, routeOptions: AgentRouteOptions) {
  const { agent, messages, options, conversation, release } = await prepareAgentCall(c, routeOptions);
  const result = await agent
    .generate(messages, { ...options, abortSignal: c.req.raw.signal })
    .catch((error: unknown) => {
      throw toApiError(error);
    })
    .finally(release);
  if (conversation) c.header(THREAD_HEADER, conversation.threadId);
  return c.json(toGenerateResponse(result, conversation, c.get('traceId')));
}

/**
 * Validation, the conversation and the run's start all happen before the first
 * byte, so a bad request is still a JSON 400. After that, failures are events.
 */
async function stream(c: Context, routeOptions: AgentRouteOptions) {
  const { agent, messages, options, conversation, release } = await prepareAgentCall(c, routeOptions);
  const abort = new AbortController();
  const output = await agent.stream(messages, { ...options, abortSignal: abort.signal }).catch((error: unknown) => {
    release();
    throw toApiError(error);
  });
  if (conversation) c.header(THREAD_HEADER, conversation.threadId);
  c.header('x-accel-buffering', 'no');
  return streamSSE(c, async (sse) => {
    // The client hanging up cancels the SSE stream; that stops the model request too.
    sse.onAbort(() => abort.abort());
    await pipeSpecEvents(output.fullStream, output.runId, sse, abort, routeOptions.stream).finally(release);
  });
}
