import { z } from 'zod';
import { endsWithUserMessage, LAST_MESSAGE_FROM_USER, MAX_MESSAGES, personality, textContent, type SpecMessage } from './agent-request.ts';
import { fromZodError, invalidRequest, type ApiError } from './errors.ts';
import { safeId } from './ids.ts';
import { NATIVE_CLIENT_HEADER } from './headers.ts';

/**
 * @module What a client speaking Mastra's native protocol (Studio,
 * `@mastra/client-js`) may send to `/generate` and `/stream`. Mastra's stock
 * handler takes `instructions`, `system`, `model`, `modelSettings`,
 * `providerOptions`, `tools`, `clientTools`, `toolChoice`, `activeTools`… from
 * the body; in production this allow-list is all it gets: every other field is
 * a 400 that names it. In development the body is Mastra's own (Studio's
 * playground sets model settings), except that `memory` still follows the
 * ownership rules.
 */
const MAX_NATIVE_STEPS = 10;

/** Fields of a native body SPEC's has not: a SPEC request holding one came from a Mastra client without the header. */
const NATIVE_ONLY_FIELDS = ['memory', 'requestContext', 'runId', 'maxSteps'];

/**
 * A refused SPEC body that reads as a native one (`messages` a string, a native-only field, or content parts of
 * the AI SDK's `{type: "text"}`) says how to select that protocol: stock client-js sends no header of its own.
 */
export function invalidSpecBody(error: z.ZodError, body: unknown): ApiError {
  const refused = fromZodError(error);
  if (!looksNative(body)) return refused;
  return invalidRequest(`${refused.message}. Mastra's own clients (@mastra/client-js, Studio) select their protocol with the ${NATIVE_CLIENT_HEADER} header.`, refused.details);
}

function looksNative(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { messages } = body as { messages?: unknown };
  const hasTextParts = Array.isArray(messages) && messages.some((message) => Array.isArray(message?.content) && message.content.some((part: unknown) => (part as { type?: unknown })?.type === 'text'));
  return typeof messages === 'string' || hasTextParts || NATIVE_ONLY_FIELDS.some((field) => field in body);
}

const textPart = z.strictObject({ type: z.literal('text', { error: 'content parts must be {type: "text", text}' }), text: z.string() });

const nativeMessage = z.strictObject({
  role: z.enum(['user', 'assistant', 'system'], { error: 'role must be one of user, assistant, system' }),
  content: textContent(textPart, 'content must be a string or an array of {type: "text", text} parts'),
});

/** The thread as an id, or as `{id}`, which `@mastra/client-js` also takes (its other fields would set the thread's). */
const memoryThread = (strict: boolean) =>
  z.union([safeId('memory.thread'), (strict ? z.strictObject : z.looseObject)({ id: safeId('memory.thread.id') }).transform(({ id }) => id)], {
    error: strict ? 'memory.thread must be a thread id, or {id}' : 'memory.thread must be a thread id, or {id, …}',
  });

const nativeMemory = z.strictObject({
  thread: memoryThread(true),
  /** Optional only when the caller is authenticated: the token names the user then. */
  resource: safeId('memory.resource').optional(),
});

/** What a native client may set in the request context, in the body or as `?requestContext=`: the voice. */
const nativeRequestContext = z.strictObject({ personality: personality.optional() });

/** The request context as Mastra merged it (the query's reaches it without the body's schema), checked as the body's field. */
export const nativeContextField = z.object({ requestContext: nativeRequestContext });

const nativeMessages = z.union([z.string().refine((text) => text.trim() !== '', 'messages must hold some text, not only whitespace'), z.array(nativeMessage).min(1).max(MAX_MESSAGES)], {
  error: 'messages must be a string or an array of {role, content} messages',
});

export const nativeAgentRequest = z.strictObject({
  messages: nativeMessages.refine(endsWithUserMessage, LAST_MESSAGE_FROM_USER),
  memory: nativeMemory.optional(),
  requestContext: nativeRequestContext.optional(),
  runId: safeId('runId').optional(),
  maxSteps: z.number().int().min(1).max(MAX_NATIVE_STEPS).optional(),
});

/**
 * A native turn's messages in SPEC's form, for what a SPEC turn derives from its own (the thread's title): a string
 * is one user message. Messages of another shape (Studio's playground sends Mastra's own) give none.
 */
export function specMessagesOf(messages: unknown): SpecMessage[] {
  const parsed = nativeMessages.safeParse(messages);
  if (!parsed.success) return [];
  if (typeof parsed.data === 'string') return [{ role: 'user', content: parsed.data }];
  return parsed.data.map(({ role, content }) => ({
    role,
    content: typeof content === 'string' ? content : content.map(({ text }) => ({ type: 'input_text' as const, text })),
  }));
}

/** Development (Studio's playground): Mastra's own body, with its ids checked (they go into headers, logs and store keys). */
export const playgroundAgentRequest = z.looseObject({
  memory: z.looseObject({ thread: memoryThread(false), resource: safeId('memory.resource').optional() }).optional(),
  runId: safeId('runId').optional(),
});

export type NativeMemory = z.infer<typeof nativeMemory>;
