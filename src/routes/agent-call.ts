/**
 * @module The SPEC agent routes' shared way in: body, thread, personality, agent input.
 */
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MASTRA_RESOURCE_ID_KEY, RequestContext } from '@mastra/core/request-context';
import { agentRequest } from '../contract/agent-request.ts';
import { invalidSpecBody } from '../contract/native-request.ts';
import { requestedPersonality, titleFrom, toAgentMessages } from '../contract/agent-input.ts';
import { bodyTooLarge, invalidRequest, MODEL_NOT_CONFIGURED, unsupportedCharset, unsupportedContentEncoding, unsupportedMediaType } from '../contract/errors.ts';
import { PERSONALITY_KEY } from '../mastra/agents/companion-agent.ts';
import { COMPANION_AGENT_ID } from '../contract/paths.ts';
import { STATELESS_KEY } from '../mastra/memory.ts';
import { openConversation } from '../threads/conversation.ts';
import { callerOf, effectiveResourceId } from '../security/caller.ts';
import { startTurn, type TurnOptions } from '../threads/turn.ts';
import { createTurnScope, runInTurnScope } from '../threads/turn-thread.ts';
import './context.ts';

export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Only `application/json`: a `text/plain` or form body is a request a web page
 * on any origin can send without a CORS preflight.
 */
const JSON_CONTENT_TYPE = /^application\/json\s*(;|$)/i;

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)"?/i;
/**
 * A JSON body is read as UTF-8, whatever its label (RFC 8259 gives JSON no charset parameter); its bytes must be
 * UTF-8. A label of a multi-byte encoding is refused at once: such bytes never read as UTF-8 JSON.
 */
const NEVER_UTF8 = /^(utf-?(16|32)|ucs-?[24])/i;

/**
 * Reads the body as JSON within the size limit: not declared as JSON, declared UTF-16 or UTF-32, or
 * compressed → 415, too large → 413, not UTF-8 or not JSON → 400. It reads a copy, so Mastra's stock
 * handler can still read the body of a native request after it has been checked.
 */
export async function readJsonBody(c: Context): Promise<unknown> {
  const contentType = c.req.header('content-type');
  if (!JSON_CONTENT_TYPE.test(contentType ?? '')) throw unsupportedMediaType(contentType);
  const charset = CHARSET.exec(contentType!)?.[1];
  if (charset !== undefined && NEVER_UTF8.test(charset)) throw unsupportedCharset(charset);
  refuseContentEncoding(c);
  let bytes = new ArrayBuffer(0);
  try {
    await bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw bodyTooLarge(MAX_BODY_BYTES);
      },
    })(c, async () => {
      bytes = await c.req.raw.clone().arrayBuffer();
    });
  } catch (error) {
    // A client that hung up mid-body, or broke its chunked framing, is the client's failure (as an upload's is in /stt).
    throw isConnectionLost(c, error) ? invalidRequest('The request body was interrupted before it was complete.') : error;
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidRequest('Request body must be UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest('Request body must be valid JSON.');
  }
}

/** Whether reading the body failed because its connection went: Node ends such a body with ECONNRESET ("aborted"). */
function isConnectionLost(c: Context, error: unknown): boolean {
  return c.req.raw.signal.aborted || (error as { code?: unknown } | null)?.code === 'ECONNRESET';
}

/** A body in a content coding (gzip, br…) is refused: none is decoded, and read as plain it is garbage. */
export function refuseContentEncoding(c: Context) {
  const contentEncoding = c.req.header('content-encoding')?.trim();
  if (contentEncoding && contentEncoding.toLowerCase() !== 'identity') throw unsupportedContentEncoding(contentEncoding);
}

/** The names of the request's query parameters, each once. */
export function queryParameterNames(c: Context): string[] {
  return [...new Set(new URL(c.req.url).searchParams.keys())];
}

/** A route that takes no query parameter refuses any, naming them after `message` (which says where they belong). */
export function refuseQueryParameters(c: Context, message: string) {
  const refused = queryParameterNames(c);
  if (refused.length > 0) throw invalidRequest(`${message}: ${refused.join(', ')}`, { field: 'query', refused });
}

/**
 * The one way into the agent for both SPEC routes: parse the body against the
 * SPEC schema, start the turn (which waits for the thread's previous turns),
 * open the conversation (thread, owner, personality) within the turn's time, and build the agent's
 * input. The handlers only differ in how they answer; each ends the turn on
 * every way out.
 */
export async function prepareAgentCall(c: Context, options: { modelConfigured: boolean; turns: TurnOptions }) {
  // The client's connection, watched from the start: a client that leaves while its turn waits is dropped.
  const clientSignal = c.req.raw.signal;
  // Every field is in the body: a `threadId` or `resourceId` put in the URL instead would be a stateless turn.
  refuseQueryParameters(c, 'The agent routes take no query parameters; send them in the body');
  const body = await readJsonBody(c);
  const parsed = agentRequest.safeParse(body);
  if (!parsed.success) throw invalidSpecBody(parsed.error, body);
  const request = parsed.data;
  if (!options.modelConfigured) throw MODEL_NOT_CONFIGURED;

  const agent = c.get('mastra').getAgent(COMPANION_AGENT_ID);
  // With auth on, the token's subject owns the conversation: a thread id alone continues the caller's thread.
  const caller = callerOf(c.get('requestContext'));
  const resourceId = effectiveResourceId(caller, request.resourceId);
  const threadOwner = request.threadId || request.resourceId ? resourceId : undefined;
  // A thread named without an owner is a 400 (openConversation); a fresh thread id needs no queue.
  const thread = request.threadId && threadOwner ? { owner: threadOwner, threadId: request.threadId } : undefined;
  // The access line names the thread and owner asked for, also when the turn fails before it opens them (a 404, a 429).
  c.set('conversation', { threadId: request.threadId, resourceId: threadOwner ?? caller });
  const turn = await startTurn(thread, clientSignal, options.turns);
  const conversation = await turn.open(
    agent.getMemory().then((memory) =>
      openConversation(memory, {
        threadId: request.threadId,
        resourceId: threadOwner,
        claimNewThread: turn.claimNewThread,
        personality: requestedPersonality(request),
        tags: request.runtimeContext?.metadata?.tags,
        title: titleFrom(request.messages),
      }),
    ),
  );

  // A new thread's id is known once it is opened.
  c.set('conversation', { threadId: conversation.ids?.threadId, resourceId: conversation.ids?.resourceId ?? caller });
  const requestContext = new RequestContext();
  const ids = conversation.ids;
  // A stateless turn has no owner: Mastra would take the caller's resource key as one and then demand a thread.
  if (!ids) requestContext.set(STATELESS_KEY, true);
  else if (caller) requestContext.set(MASTRA_RESOURCE_ID_KEY, caller);
  requestContext.set(PERSONALITY_KEY, conversation.personality);
  const userId = request.runtimeContext?.metadata?.userId;
  if (userId) requestContext.set('userId', userId);

  return {
    agent,
    messages: toAgentMessages(request.messages),
    options: {
      requestContext,
      memory: ids ? { thread: ids.threadId, resource: ids.resourceId } : undefined,
      // With tracing on, the turn's trace carries the request's x-trace-id: a log line leads to its trace.
      tracingOptions: { metadata: { requestTraceId: c.get('traceId') } },
    },
    /** The stored conversation's ids; `undefined` for a stateless turn. */
    conversation: ids,
    /** Runs the agent call in the turn's scope: Mastra's reads of its thread, as this turn opened it, need no query. */
    run: <T>(call: () => T) => runInTurnScope(conversation.thread && createTurnScope(conversation.thread), call),
    /** This turn: its abort signal goes to the agent call, and `end()` must follow every way out. */
    turn,
  };
}
