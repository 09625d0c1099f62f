import type { Context, MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import { toGenerateResponse } from '../contract/generate-response.ts';
import { CLIENT_GONE, toApiError } from '../contract/errors.ts';
import { NATIVE_CLIENT_HEADER, THREAD_HEADER } from '../contract/headers.ts';
import { SPEC_PATHS } from '../contract/paths.ts';
import type { ServerMode } from '../security/route-gate.ts';
import type { Turn, TurnOptions } from '../threads/turn.ts';
import { prepareAgentCall } from './agent-call.ts';
import { dropConnection } from './client-connection.ts';
import { logFailure } from './error-handler.ts';
import { sanitizeNativeAnswer, startNativeTurn } from './native-call.ts';
import { pipeSpecEvents, type StreamTiming } from './spec-stream.ts';
import { createTurnScope, runInTurnScope } from '../threads/turn-thread.ts';
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

/**
 * Only POST gets here: the route gate answers other methods with 405. A native
 * turn runs in Mastra's stock handler, which takes the turn's signal as its
 * abort signal (Mastra's context variable `abortSignal`).
 */
function agentRoute(spec: (c: Context) => Promise<Response>, options: AgentRouteOptions): MiddlewareHandler {
  return async (c, next) => {
    if (!c.req.header(NATIVE_CLIENT_HEADER)) return spec(c);
    const { turn, thread } = await startNativeTurn(c, options);
    c.set('abortSignal', turn.signal);
    const scope = thread && createTurnScope(thread);
    try {
      await runInTurnScope(scope, next);
    } catch (error) {
      turn.end();
      throw error;
    }
    await sanitizeNativeAnswer(c, options, turn, scope);
  };
}

export interface AgentRouteOptions {
  modelConfigured: boolean;
  /** What a native request may send (see native-call.ts). */
  mode: ServerMode;
  /** Bounds of a turn (README "Turns and limits"). */
  turns: TurnOptions & { idleTimeoutMs: number };
  stream: Omit<StreamTiming, 'idleTimeoutMs'>;
}

export function createAgentRoutes(routeOptions: AgentRouteOptions) {
  return [
    { path: SPEC_PATHS.generate, handler: agentRoute((c) => generate(c, routeOptions), routeOptions) },
    { path: SPEC_PATHS.stream, handler: agentRoute((c) => stream(c, routeOptions), routeOptions) },
  ];
}

async function generate(c: Context, routeOptions: AgentRouteOptions) {
  const { agent, messages, options, conversation, turn, run } = await prepareAgentCall(c, routeOptions);
  nameStoredThread(c, conversation);
  try {
    const result = await run(() =>
      agent.generate(messages, {
        ...options,
        abortSignal: turn.signal,
        // Without a stream, model silence is a model call that takes too long: Mastra's per-call timeout.
        modelSettings: { timeout: { stepMs: routeOptions.turns.idleTimeoutMs } },
      }),
    ).catch((error: unknown) => {
      throw turn.stopped() ?? toApiError(error);
    });
    // A stopped run resolves (finish reason "aborted") rather than rejects.
    throwIfStopped(turn);
    return c.json(toGenerateResponse(result, conversation, c.get('traceId')));
  } finally {
    turn.end();
  }
}

/**
 * Validation, the queue, the conversation and the run's start all happen before
 * the first byte, so a bad request is still a JSON 4xx. After that, failures are events.
 */
async function stream(c: Context, routeOptions: AgentRouteOptions) {
  const { agent, messages, options, conversation, turn, run } = await prepareAgentCall(c, routeOptions);
  nameStoredThread(c, conversation);
  let output;
  try {
    // The turn lock orders the thread's turns, and production serves none of Mastra's thread subscriptions, signals or
    // aborts by thread: registering the run with Mastra's thread-run runtime would cost 6 % of a turn's CPU for no one.
    output = await run(() => agent.stream(messages, { ...options, abortSignal: turn.signal, registerThreadRun: false }));
    throwIfStopped(turn);
  } catch (error) {
    turn.end();
    throw turn.stopped() ?? toApiError(error);
  }
  c.header('x-accel-buffering', 'no');
  const timing = { ...routeOptions.stream, idleTimeoutMs: routeOptions.turns.idleTimeoutMs };
  return streamSSE(c, async (sse) => {
    sse.onAbort(() => turn.abort(CLIENT_GONE));
    try {
      await pipeSpecEvents(output, { sse, drop: () => dropConnection(c) }, turn, timing);
    } finally {
      // The client got the failure as an event, after a 200: the log gets the line a JSON error gets.
      const failure = turn.stopped();
      if (failure) logFailure(c, failure);
      turn.end();
    }
  });
}

/**
 * The thread is stored once the turn has opened it, with the user's message stored before the model is called: a
 * turn that fails after that still names it, so a client that sent only a `resourceId` can find (and retry on) it.
 */
function nameStoredThread(c: Context, conversation: { threadId: string } | undefined) {
  if (conversation) c.header(THREAD_HEADER, conversation.threadId);
}

function throwIfStopped(turn: Turn) {
  const reason = turn.stopped();
  if (reason) throw reason;
}
