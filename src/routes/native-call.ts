import type { Context } from 'hono';
import { isReservedRequestContextKey } from '@mastra/server/server-adapter';
import { fromSerializedFailure, fromZodError, invalidRequest, toolFailed } from '../contract/errors.ts';
import { nativeAgentRequest, playgroundAgentRequest, type NativeMemory } from '../contract/native-request.ts';
import { redactRequestBody } from '../contract/redact.ts';
import { callerOf, effectiveResourceId } from '../security/caller.ts';
import { COMPANION_AGENT_ID, PERSONALITY_KEY } from '../mastra/agents/companion-agent.ts';
import type { ServerMode } from '../security/route-gate.ts';
import { findOwnedThread, requireMemory } from '../threads/thread-service.ts';
import { readJsonBody } from './agent-call.ts';
import { replaceJsonBody } from './response-body.ts';
import './context.ts';

/**
 * @module The checks a native request passes before Mastra's stock agent
 * handler runs it (the `x-mastra-client-type` header selects that wire format
 * and grants nothing): the body against the native allow-list, the request
 * context (body and `?requestContext=` merged) holding nothing but
 * `personality`, and `memory` naming a thread of the caller. In development the
 * body is Studio's (see native-request.ts); the memory rules still hold.
 * Mastra's answer is then cleaned (`sanitizeNativeAnswer`).
 */
export interface NativeCallOptions {
  mode: ServerMode;
}

const CLIENT_CONTEXT_KEYS = new Set([PERSONALITY_KEY]);

export async function checkNativeCall(c: Context, options: NativeCallOptions): Promise<void> {
  const schema = options.mode === 'production' ? nativeAgentRequest : playgroundAgentRequest;
  const parsed = schema.safeParse(await readJsonBody(c));
  if (!parsed.success) throw fromZodError(parsed.error);
  if (options.mode === 'production') checkRequestContextKeys(c);
  if (parsed.data.memory) await checkMemoryOwner(c, parsed.data.memory);
}

/** Keys the server sets (auth, Studio) are reserved; a client may only choose the voice. */
function checkRequestContextKeys(c: Context) {
  const clientKeys = [...c.get('requestContext').keys()].filter((key) => !isReservedRequestContextKey(key));
  const refused = clientKeys.filter((key) => !CLIENT_CONTEXT_KEYS.has(key));
  if (refused.length > 0) {
    throw invalidRequest(`requestContext may only hold ${[...CLIENT_CONTEXT_KEYS].join(', ')}; refused: ${refused.join(', ')}`, {
      field: 'requestContext',
      refused,
    });
  }
}

/**
 * The caller is the authenticated user when auth sets Mastra's reserved
 * resource key, else whoever `memory.resource` names; either way the thread
 * must be new or theirs (another user's thread is a 404, like a missing one).
 */
async function checkMemoryOwner(c: Context, memory: Pick<NativeMemory, 'thread' | 'resource'>) {
  const resource = effectiveResourceId(callerOf(c.get('requestContext')), memory.resource);
  if (!resource) {
    throw invalidRequest('memory.thread requires memory.resource: a thread always belongs to a user', { field: 'memory.resource' });
  }
  const store = requireMemory(await c.get('mastra').getAgent(COMPANION_AGENT_ID).getMemory());
  await findOwnedThread(store, memory.thread, resource);
}

interface NativeGenerateReply {
  request?: { body?: unknown };
  steps?: Array<{ request?: { body?: unknown } }>;
}

/**
 * What leaves after Mastra's stock handler: errors reduced to `{message, code}`
 * in the generate reply and in every stream frame, and, outside development,
 * the generate reply's model requests redacted as SPEC's are.
 */
export async function sanitizeNativeAnswer(c: Context, options: NativeCallOptions): Promise<void> {
  const contentType = c.res.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) sanitizeNativeStream(c);
  else if (c.res.status === 200 && contentType.startsWith('application/json')) {
    const reply = withoutErrorDetails(await c.res.json(), false) as NativeGenerateReply;
    replaceJsonBody(c, 200, options.mode === 'production' ? redactedReply(reply) : reply);
  }
}

function redactedReply(reply: NativeGenerateReply) {
  return { ...reply, request: redactedRequest(reply.request), steps: reply.steps?.map((step) => ({ ...step, request: redactedRequest(step.request) })) };
}

function redactedRequest(request: { body?: unknown } | undefined) {
  return request && { ...request, body: redactRequestBody(request.body) };
}

/** Rewrites each frame of a native stream whole (SSE frames end with a blank line). */
function sanitizeNativeStream(c: Context): void {
  let pending = '';
  const frames = new TransformStream<string, string>({
    transform(chunk, controller) {
      const complete = (pending + chunk).split('\n\n');
      pending = complete.pop() ?? '';
      for (const frame of complete) controller.enqueue(`${sanitizedFrame(frame)}\n\n`);
    },
    flush(controller) {
      if (pending) controller.enqueue(sanitizedFrame(pending));
    },
  });
  c.res = new Response(c.res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(frames).pipeThrough(new TextEncoderStream()), c.res);
}

function sanitizedFrame(frame: string): string {
  if (!frame.startsWith('data: {')) return frame;
  return `data: ${JSON.stringify(withoutErrorDetails(JSON.parse(frame.slice('data: '.length)), false))}`;
}

/**
 * Mastra serializes errors whole wherever they occur (an `error` event, a
 * `tool-error`, an error part of a UI message): message, stack, URL, the model
 * request with the prompt. Each `error` value becomes `{message, code}`: under
 * a `tool-error`, the tool's own message as the model was told it; elsewhere
 * the classified failure.
 */
function withoutErrorDetails(value: unknown, fromTool: boolean): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutErrorDetails(item, fromTool));
  if (!value || typeof value !== 'object') return value;
  const underTool = fromTool || (value as { type?: unknown }).type === 'tool-error';
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, key === 'error' && item ? safeError(item, underTool) : withoutErrorDetails(item, underTool)]),
  );
}

function safeError(error: unknown, fromTool: boolean) {
  const message = typeof error === 'string' ? error : (error as { message?: unknown }).message;
  const failure = fromTool ? toolFailed(String(message ?? 'The tool failed.')) : fromSerializedFailure(error);
  return { message: failure.message, code: failure.code };
}
