import type { Context, MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { toGenerateResponse, type MastraGenerateResult } from '../contract/generate-response.ts';
import { toApiError } from '../contract/errors.ts';
import { COMPANION_AGENT_ID } from '../mastra/agents/companion-agent.ts';
import type { ServerMode } from '../security/route-gate.ts';
import { prepareAgentCall } from './agent-call.ts';
import { checkNativeCall, sanitizeNativeAnswer } from './native-call.ts';
import { pipeSpecEvents, type StreamTiming } from './spec-stream.ts';
import './context.ts';

/**
 * @module SPEC's `/generate` and `/stream` live on the same paths as Mastra's stock
 * agent routes. Mastra's own clients keep the native protocol: Studio sends
 * `x-mastra-client-type: studio`, and `@mastra/client-js` users set that header
 * through the client's `headers` option (see README). The header selects the
 * wire format and grants nothing: a native request is checked (native-call.ts)
 * before Mastra's stock handler runs it. Everyone else gets SPEC. The body's
 * shape does not select the format: every native body is either a valid SPEC
 * body too or one SPEC requires a 400 for.
 */
export const NATIVE_CLIENT_HEADER = 'x-mastra-client-type';
export const THREAD_HEADER = 'x-thread-id';

const AGENT_PATH = `/api/agents/${COMPANION_AGENT_ID}`;

/** Only POST gets here: the route gate answers other methods with 405. */
function agentRoute(spec: (c: Context) => Promise<Response>, options: AgentRouteOptions): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.header(NATIVE_CLIENT_HEADER)) return spec(c);
    await checkNativeCall(c, options);
    await next();
    await sanitizeNativeAnswer(c, options);
  };
}

export interface AgentRouteOptions {
  modelConfigured: boolean;
  stream: StreamTiming;
  /** What a native request may send (see native-call.ts). */
  mode: ServerMode;
}

export function createAgentRoutes(routeOptions: AgentRouteOptions) {
  return [
    { path: `${AGENT_PATH}/generate`, handler: agentRoute((c) => generate(c, routeOptions), routeOptions) },
    { path: `${AGENT_PATH}/stream`, handler: agentRoute((c) => stream(c, routeOptions), routeOptions) },
  ];
}

async function generate(c: Context, routeOptions: AgentRouteOptions) {
  const { agent, messages, options, ids, release } = await prepareAgentCall(c, routeOptions);
  const result = await agent
    .generate(messages, { ...options, abortSignal: c.req.raw.signal })
    .catch((error: unknown) => {
      throw toApiError(error);
    })
    .finally(release);
  if (ids.threadId) c.header(THREAD_HEADER, ids.threadId);
  return c.json(toGenerateResponse(result as unknown as MastraGenerateResult, ids, c.get('traceId')));
}

/**
 * Validation, the conversation and the run's start all happen before the first
 * byte, so a bad request is still a JSON 400. After that, failures are events.
 */
async function stream(c: Context, routeOptions: AgentRouteOptions) {
  const { agent, messages, options, ids, release } = await prepareAgentCall(c, routeOptions);
  const abort = new AbortController();
  const output = await agent.stream(messages, { ...options, abortSignal: abort.signal }).catch((error: unknown) => {
    release();
    throw toApiError(error);
  });
  if (ids.threadId) c.header(THREAD_HEADER, ids.threadId);
  c.header('x-accel-buffering', 'no');
  return streamSSE(c, async (sse) => {
    // The client hanging up cancels the SSE stream; that stops the model request too.
    sse.onAbort(() => abort.abort());
    await pipeSpecEvents(output.fullStream as ReadableStream, output.runId, sse, abort, routeOptions.stream).finally(release);
  });
}
