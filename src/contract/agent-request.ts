/**
 * @module The SPEC request body of `/generate` and `/stream`. This schema is the single
 * source of validation, types and the README's API table. The top level is
 * strict so a body can never smuggle `instructions`, `model`, `tools` or
 * `clientTools` into the agent call: such a key is a 400 that names it.
 */
import { z } from 'zod';
import { PERSONALITIES } from './personalities.ts';
import { safeId } from './ids.ts';
import { tags } from './thread.ts';

export const personality = z.enum(PERSONALITIES, {
  error: `personality must be one of ${PERSONALITIES.join(', ')}`,
});

const contentPart = z.object({
  type: z.enum(['input_text', 'output_text'], { error: 'content part type must be input_text or output_text' }),
  text: z.string({ error: 'content part text must be a string' }),
});

/** A message's text, whether its content is a string or text parts (joined by a space). */
export function contentText(content: string | ReadonlyArray<{ text: string }>): string {
  return typeof content === 'string' ? content : content.map(({ text }) => text).join(' ');
}

/**
 * A message's content, a string or text parts, holding some text: the model never sees blank text (it is
 * dropped on the way), so a blank user message would leave the turn without a question, or make the
 * message before it the last one.
 */
export function textContent<Part extends z.ZodType<{ text: string }>>(part: Part, error: string) {
  // The refinement, which JSON Schema cannot run, is also written as the keywords that say the same (OpenAPI).
  const someText = { type: 'string', pattern: '\\S' };
  return z
    .union([z.string().meta(someText), z.array(part).min(1, 'content must not be empty').meta({ contains: { type: 'object', properties: { text: someText }, required: ['text'] } })], { error })
    .refine((content) => contentText(content).trim() !== '', 'content must hold some text, not only whitespace');
}

const specMessage = z.object({
  role: z.enum(['user', 'assistant', 'system'], { error: 'role must be one of user, assistant, system' }),
  content: textContent(contentPart, 'content must be a string or an array of {type, text} parts'),
});

export const MAX_MESSAGES = 100;

/**
 * Mastra continues a trailing assistant message instead of answering it: the
 * client's text would become the start of the stored reply, in the agent's name.
 * A trailing system message is refused alike: the turn answers the user's last words.
 */
export const LAST_MESSAGE_FROM_USER =
  "the last message must have role user: the companion answers the user (a trailing assistant message would be merged into the reply; put a system message before the user's last message)";

/** An empty list is refused on its own (at least one message). */
export function endsWithUserMessage(messages: string | Array<{ role: string }>): boolean {
  return typeof messages === 'string' || messages.length === 0 || messages.at(-1)?.role === 'user';
}

/**
 * The context objects pass other fields on untouched, but a personality beside `metadata` (where Mastra's own
 * request context keeps it) would be silently ignored: the client would get another voice than it asked for.
 */
const hasNoPersonality = (context: Record<string, unknown>) => !('personality' in context);
/** The same, as JSON Schema says it (OpenAPI). */
const noPersonality = { not: { required: ['personality'] } };
const misplacedPersonality = (field: string) => ({
  message: `personality belongs in ${field}.metadata.personality`,
  path: ['personality'],
});

export const agentRequest = z
  .object({
    messages: z
      .array(specMessage, { error: 'messages must be an array of messages' })
      .min(1, 'messages must contain at least one message')
      .max(MAX_MESSAGES, `messages may contain at most ${MAX_MESSAGES} messages`)
      .refine(endsWithUserMessage, LAST_MESSAGE_FROM_USER)
      .meta({ description: `The conversation, oldest first; ${LAST_MESSAGE_FROM_USER}` }),
    threadId: safeId('threadId').optional(),
    resourceId: safeId('resourceId').optional(),
    runtimeContext: z
      .looseObject({
        metadata: z
          .looseObject({ personality: personality.optional(), userId: z.string().optional(), tags: tags.optional() })
          .optional(),
      })
      .refine(hasNoPersonality, misplacedPersonality('runtimeContext'))
      .meta(noPersonality)
      .optional(),
    tracingOptions: z
      .looseObject({ metadata: z.looseObject({ personality: personality.optional() }).optional() })
      .refine(hasNoPersonality, misplacedPersonality('tracingOptions'))
      .meta(noPersonality)
      .optional(),
  })
  .strict();

export type AgentRequest = z.infer<typeof agentRequest>;
export type SpecMessage = z.infer<typeof specMessage>;
