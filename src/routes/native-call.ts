import type { Context } from 'hono';
import type { StorageThreadType } from '@mastra/core/memory';
import { MASTRA_RESOURCE_ID_KEY, type RequestContext } from '@mastra/core/request-context';
import { isReservedRequestContextKey } from '@mastra/server/server-adapter';
import {
  type ApiError,
  CLIENT_GONE,
  clientTooSlow,
  fromSerializedFailure,
  fromZodError,
  invalidRequest,
  isClientsOwn,
  MODEL_NOT_CONFIGURED,
  toApiError,
  toolFailed,
} from '../contract/errors.ts';
import { titleFrom } from '../contract/agent-input.ts';
import {
  nativeAgentRequest,
  nativeContextField,
  playgroundAgentRequest,
  specMessagesOf,
  type NativeMemory,
} from '../contract/native-request.ts';
import { clientModelRequest, clientResponseHeaders } from '../contract/redact.ts';
import { callerOf, effectiveResourceId, mastraResourceId } from '../security/caller.ts';
import { PERSONALITY_KEY } from '../mastra/agents/companion-agent.ts';
import { COMPANION_AGENT_ID } from '../contract/paths.ts';
import { isPersonality } from '../contract/personalities.ts';
import { STATELESS_KEY } from '../mastra/memory.ts';
import type { ServerMode } from '../security/route-gate.ts';
import { openConversation } from '../threads/conversation.ts';
import { refuseOthersMessages } from '../threads/thread-service.ts';
import { STOPPED_TURN_GRACE_MS, startTurn, type Turn, type TurnOptions } from '../threads/turn.ts';
import { settledWithin } from '../threads/settled-within.ts';
import type { TurnScope } from '../threads/turn-thread.ts';
import { queryParameterNames, readJsonBody } from './agent-call.ts';
import { logFailure } from './error-handler.ts';
import { replaceJsonBody } from './response-body.ts';
import { dropConnection } from './client-connection.ts';
import { settle, type StreamTiming } from './spec-stream.ts';
import './context.ts';

/**
 * @module A native request's turn (the `x-mastra-client-type` header selects
 * that wire format and grants nothing). Before Mastra's stock agent handler
 * runs it, the body is checked against the native allow-list, the request
 * context (body and `?requestContext=` merged) may hold nothing but
 * `personality`, and the turn starts as a SPEC turn does (turn.ts): in the
 * queue of its owner's thread, bounded in time, stopped when its client goes,
 * with `memory` naming a thread of the caller. In development the body is
 * Studio's (see native-request.ts); the memory rules still hold. Mastra's
 * answer is then cleaned (`sanitizeNativeAnswer`), and the turn ends when it
 * has been sent whole.
 */
export interface NativeCallOptions {
  modelConfigured: boolean;
  mode: ServerMode;
  turns: TurnOptions;
  /** A client that leaves a frame unread this long is dropped, as on a SPEC stream. */
  stream: Pick<StreamTiming, 'writeTimeoutMs'>;
}

const CLIENT_CONTEXT_KEYS = new Set([PERSONALITY_KEY]);

/**
 * Checks the request and starts its turn; the caller hands `turn.signal` to Mastra's handler, runs it on the turn's
 * `thread` (runInTurnScope: Mastra's reads of it need no query) and ends the turn.
 */
export async function startNativeTurn(c: Context, options: NativeCallOptions): Promise<{ turn: Turn; thread?: StorageThreadType }> {
  const clientSignal = c.req.raw.signal;
  const schema = options.mode === 'production' ? nativeAgentRequest : playgroundAgentRequest;
  const parsed = schema.safeParse(await readJsonBody(c));
  if (!parsed.success) throw fromZodError(parsed.error);
  if (options.mode === 'production') {
    checkQuery(c);
    checkRequestContext(c);
  }
  // As on the SPEC routes: the message that says how to configure one, and no thread opened for a turn that cannot run.
  if (!options.modelConfigured) throw MODEL_NOT_CONFIGURED;
  const memory = parsed.data.memory;
  const thread = memory && { owner: memoryOwner(c, memory, options.mode), threadId: memory.thread };
  const agent = c.get('mastra').getAgent(COMPANION_AGENT_ID);
  // Development's body may give its messages ids (production's schema refuses them): one naming another owner's
  // stored message would move it into this thread.
  const { messages } = parsed.data as { messages?: unknown };
  if (options.mode === 'development' && thread && Array.isArray(messages)) {
    const conversations = await agent.getMemory();
    if (conversations) await refuseOthersMessages(conversations, messages, () => thread.owner);
  }
  const context = c.get('requestContext');
  // Before the turn starts, so a turn its thread's full queue refuses is named too.
  c.set('conversation', { threadId: thread?.threadId, resourceId: thread?.owner ?? callerOf(context) });
  const turn = await startTurn(thread, clientSignal, options.turns);
  if (!thread) {
    runStateless(context);
    return { turn };
  }
  // The thread as a SPEC turn opens it: created with its title, its voice changed when one is named.
  const requested = context.get(PERSONALITY_KEY);
  const conversation = await turn.open(
    agent.getMemory().then((memory) =>
      openConversation(memory, {
        threadId: thread.threadId,
        resourceId: thread.owner,
        claimNewThread: turn.claimNewThread,
        // A personality the request context names, if it is one (the playground's is not checked).
        personality: isPersonality(requested) ? requested : undefined,
        title: titleFrom(specMessagesOf(parsed.data.messages)),
      }),
    ),
  );
  // Named or not, the turn speaks in the thread's voice.
  context.set(PERSONALITY_KEY, conversation.personality);
  return { turn, thread: conversation.thread };
}

/**
 * A turn without `memory` is stateless, as a SPEC turn without ids: Mastra
 * takes the caller's resource key as the turn's owner and then demands a
 * thread, so the key goes; and memory's processors are skipped.
 */
function runStateless(context: RequestContext) {
  context.delete(MASTRA_RESOURCE_ID_KEY);
  context.set(STATELESS_KEY, true);
}

/** Mastra's adapter hands its agent handler the query's parameters beside the body's, unchecked. */
const NATIVE_QUERY_PARAMETERS = new Set(['requestContext']);

/** So a query parameter could set what the body may not (`?instructions=`, `?model=`, `?runId=`): only the voice's context passes. */
function checkQuery(c: Context) {
  refuseOthers({ field: 'query', named: 'The query' }, queryParameterNames(c), NATIVE_QUERY_PARAMETERS);
}

/** A 400 naming every one of `names` that is not `allowed` in `field` (called `named` in the message). */
function refuseOthers({ field, named = field }: { field: string; named?: string }, names: Iterable<string>, allowed: ReadonlySet<string>) {
  const refused = [...names].filter((name) => !allowed.has(name));
  if (refused.length > 0) throw invalidRequest(`${named} may only hold ${[...allowed].join(', ')}; refused: ${refused.join(', ')}`, { field, refused });
}

/**
 * Keys the server sets (auth, Studio) are reserved; a client may only choose the voice, and only one
 * that exists. The query's `?requestContext=` reaches the context without passing the body's schema.
 */
function checkRequestContext(c: Context) {
  const context = c.get('requestContext');
  const clientKeys = [...context.keys()].filter((key) => !isReservedRequestContextKey(key));
  refuseOthers({ field: 'requestContext' }, clientKeys, CLIENT_CONTEXT_KEYS);
  const parsed = nativeContextField.safeParse({ requestContext: Object.fromEntries(clientKeys.map((key) => [key, context.get(key)])) });
  if (!parsed.success) throw fromZodError(parsed.error);
}

/**
 * The caller is the authenticated user when auth sets Mastra's reserved
 * resource key, else whoever `memory.resource` names; either way the thread
 * must be new or theirs (another user's thread is a 404, like a missing one).
 * With auth, production refuses a `memory.resource` other than the caller (403);
 * development takes the caller instead, as Mastra's body is taken there (Studio
 * names the agent's id).
 */
function memoryOwner(c: Context, memory: Pick<NativeMemory, 'thread' | 'resource'>, mode: ServerMode): string {
  const ownerRule = mode === 'development' ? mastraResourceId : effectiveResourceId;
  const resource = ownerRule(callerOf(c.get('requestContext')), memory.resource);
  if (!resource) {
    throw invalidRequest('memory.thread requires memory.resource: a thread always belongs to a user', { field: 'memory.resource' });
  }
  return resource;
}

interface ModelCall {
  request?: { body?: unknown };
  response?: { body?: unknown };
}

interface NativeGenerateReply extends ModelCall {
  steps?: ModelCall[];
}

/**
 * What leaves after Mastra's stock handler: errors reduced to `{message, code}`
 * and the model server's headers reduced to those a SPEC reply shows, in the generate reply and in every
 * stream frame, and, outside development, the generate reply's model calls
 * shown as SPEC's are (the request's redacted body, the response without its
 * raw body). The turn ends
 * with the answer: a stream's once its last frame has gone or its client has
 * left, and a stopped run has stored what it had; a stopped generate answers
 * why it stopped, as SPEC's does.
 */
export async function sanitizeNativeAnswer(c: Context, options: NativeCallOptions, turn: Turn, scope?: TurnScope): Promise<void> {
  const contentType = c.res.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream') && c.res.body) return sanitizeNativeStream(c, turn, options.stream.writeTimeoutMs, scope);
  try {
    const reason = turn.stopped();
    if (reason) throw reason;
    if (c.res.status === 200 && contentType.startsWith('application/json')) {
      const reply = withoutUpstreamDetails(await c.res.json(), false) as NativeGenerateReply;
      replaceJsonBody(c, 200, options.mode === 'production' ? redactedReply(reply) : reply);
    }
  } finally {
    turn.end();
  }
}

function redactedReply(reply: NativeGenerateReply) {
  return { ...redactedModelCall(reply), steps: reply.steps?.map(redactedModelCall) };
}

function redactedModelCall<T extends ModelCall>(call: T): T {
  const { body: _rawAnswer, ...response } = call.response ?? {};
  return { ...call, request: clientModelRequest(call.request), response: call.response && response };
}

/**
 * Rewrites each frame of a native stream whole (SSE frames end with a blank
 * line). A run whose reply could not be stored, or that the service stopped (its
 * time ran out, a shutdown), ends with an `error` frame in place of its `finish`
 * (Mastra finishes it as a success, or as a tripwire). The turn ends with the
 * stream, once a stopped run has stored what it had (when its client leaves, the
 * stream ends before that). The server takes the next chunk once the
 * client has read the last one: a chunk left waiting `writeTimeoutMs` means a
 * client that stopped reading, which is dropped and its turn stopped, freeing
 * its thread.
 */
function sanitizeNativeStream(c: Context, turn: Turn, writeTimeoutMs: number, scope?: TurnScope): void {
  let pending = '';
  /** The run's failure, as its `error` frame reported it to the client. */
  let failure: ApiError | undefined;
  const sanitized = (frame: string) => {
    if (!frame.startsWith('data: {')) return frame;
    const chunk = JSON.parse(frame.slice('data: '.length));
    // A run that failed already said so in its own `error` frame: its `finish` goes as it is.
    const unreported = chunk.type === 'finish' && failure === undefined ? finishFailure(turn, scope) : undefined;
    if (unreported) {
      failure = unreported;
      return `data: ${JSON.stringify({ type: 'error', runId: chunk.runId, from: chunk.from, payload: { error: { message: failure.message, code: failure.code } } })}`;
    }
    if (chunk.type === 'error') failure ??= fromSerializedFailure(chunk.payload?.error);
    return `data: ${JSON.stringify(withoutUpstreamDetails(chunk, false))}`;
  };
  const frames = new TransformStream<string, string>({
    transform(chunk, controller) {
      const complete = (pending + chunk).split('\n\n');
      pending = complete.pop() ?? '';
      for (const frame of complete) controller.enqueue(`${sanitized(frame)}\n\n`);
    },
    flush(controller) {
      if (pending) controller.enqueue(sanitized(pending));
    },
  });
  let ending: Promise<void> | undefined;
  /**
   * Ends the turn once, when the stream has ended and a stopped run has stored what it had: when its client has gone,
   * Mastra's adapter stops reading the run, so the stream ends first, and the thread's next turn would read the
   * thread without the reply, which would then land after that turn's message.
   */
  const end = () =>
    (ending ??= (async () => {
      if (scope && turn.stopped()) await settledWithin([scope.runStored], STOPPED_TURN_GRACE_MS);
      // The client got the failure as a frame, after a 200: the log gets the line a JSON error gets (as a SPEC stream's).
      const reason = turn.stopped() ?? failure;
      if (reason) logFailure(c, reason);
      turn.end();
    })());
  const reader = c.res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(frames).pipeThrough(new TextEncoderStream()).getReader();
  let unread: NodeJS.Timeout | undefined;
  const stalled = () => {
    turn.abort(clientTooSlow(writeTimeoutMs));
    dropConnection(c);
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      clearTimeout(unread);
      try {
        const next = await reader.read();
        if (!next.done) {
          controller.enqueue(next.value);
          unread = setTimeout(stalled, writeTimeoutMs);
          return;
        }
        controller.close();
      } catch (error) {
        controller.error(error);
      }
      await end();
    },
    async cancel() {
      clearTimeout(unread);
      turn.abort(CLIENT_GONE);
      await settle(reader);
      await end();
    },
  });
  c.res = new Response(body, c.res);
}

/** Why a run that reached its `finish` failed all the same: its reply was not stored, or the service stopped it. */
function finishFailure(turn: Turn, scope: TurnScope | undefined): ApiError | undefined {
  if (scope?.failedSave !== undefined) return toApiError(scope.failedSave);
  const stopped = turn.stopped();
  // A client that left hears nothing more.
  return stopped && !isClientsOwn(stopped) ? stopped : undefined;
}

/**
 * Mastra serializes errors whole wherever they occur (an `error` event, a
 * `tool-error`, an error part of a UI message): message, stack, URL, the model
 * request with the prompt. Each `error` value becomes `{message, code}`: under
 * a `tool-error`, the tool's own message as the model was told it; elsewhere
 * the classified failure. And it repeats the model server's response headers
 * in every step and finish (`headers`), cookies and the service's account
 * included: only those a SPEC reply shows stay (redact.ts), in every mode.
 */
function withoutUpstreamDetails(value: unknown, fromTool: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutUpstreamDetails(item, fromTool));
  if (!value || typeof value !== 'object') return value;
  const underTool = fromTool || (value as { type?: unknown }).type === 'tool-error';
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, withoutUpstreamDetail(key, item, underTool)]));
}

function withoutUpstreamDetail(key: string, item: unknown, underTool: boolean): unknown {
  if (key === 'error' && item) return safeError(item, underTool);
  if (key === 'headers' && item && typeof item === 'object' && !Array.isArray(item)) return clientResponseHeaders(item as Record<string, string>);
  return withoutUpstreamDetails(item, underTool);
}

function safeError(error: unknown, fromTool: boolean) {
  const message = typeof error === 'string' ? error : (error as { message?: unknown }).message;
  const failure = fromTool ? toolFailed(String(message ?? 'The tool failed.')) : fromSerializedFailure(error);
  return { message: failure.message, code: failure.code };
}
