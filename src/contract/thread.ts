/**
 * @module SPEC's Thread record and the thread API's schemas (SPEC shows no thread
 * operations; the README documents these). The owner is always named by
 * `resourceId`; another owner's thread is reported as not found.
 */
import { z } from 'zod';
import type { MastraDBMessage, StorageThreadType } from '@mastra/core/memory';
import { COMPANION_AGENT_ID } from './paths.ts';
import { DEFAULT_PERSONALITY, isPersonality, PERSONALITIES, type Personality } from './personalities.ts';
import { fromZodError } from './errors.ts';
import { safeId } from './ids.ts';

/**
 * A title or tag as people write them: no control characters, which nothing displays and PostgreSQL refuses to
 * store (U+0000), so both stores answer the same 400.
 */
function label(name: string, maxLength: number) {
  return z
    .string()
    .trim()
    .min(1, `${name} must not be empty`)
    .max(maxLength, `${name} has at most ${maxLength} characters`)
    .refine((text) => !/\p{Cc}/u.test(text), `${name} must not hold control characters`)
    // A lone surrogate is no character: the store writes U+FFFD in its place, so the answer would differ from a read.
    .refine((text) => !/\p{Cs}/u.test(text), `${name} must be valid Unicode text (no lone surrogate)`)
    .meta({
      pattern: NO_CONTROL_CHARACTERS_SOME_TEXT,
      description: `${name}, trimmed: 1-${maxLength} characters, no control characters, no lone surrogate`,
    });
}

/** The label refinement as JSON Schema says it (OpenAPI): some text, and no C0/C1 control character anywhere. */
const NO_CONTROL_CHARACTERS_SOME_TEXT = '^[^\\u0000-\\u001f\\u007f-\\u009f]*[^\\s\\u0000-\\u001f\\u007f-\\u009f][^\\u0000-\\u001f\\u007f-\\u009f]*$';

export const tags = z.array(label('a tag', 50), { error: 'tags must be an array of strings' }).max(20, 'at most 20 tags');

export const threadSchema = z.object({
  id: z.string(),
  title: z.string(),
  resourceId: z.string().describe('Owner user identifier'),
  agentId: z.string(),
  createdAt: z.string().describe('ISO 8601'),
  updatedAt: z.string().describe('ISO 8601'),
  metadata: z.object({
    personality: z.enum(PERSONALITIES),
    createdAt: z.string().describe('ISO 8601'),
    tags: z.array(z.string()),
  }),
});

export type SpecThread = z.infer<typeof threadSchema>;

/**
 * The owner; optional because with auth on the token names it (see the README's Security section). No other
 * parameter: a misspelt one (`resourceid`, `perPage[]`) would be ignored, and the request answered as if unsent.
 */
export const ownerQuery = z.strictObject({
  resourceId: safeId('resourceId')
    .optional()
    .describe("The user (the thread's owner): required without authentication; with it, the token's subject (another value is a 403)"),
});

/** The thread API with no owner (no token, no `resourceId`): answered as the query's own check would word it. */
export function ownerRequired() {
  const missing = new z.ZodError([{ code: 'custom', path: ['resourceId'], message: 'resourceId is required', input: undefined }]);
  return fromZodError(missing, 'query parameters');
}

const MAX_PER_PAGE = 100;

/** The stores refuse an offset (page × perPage) past half the largest safe integer: a page past it is a 400, not their failure. */
const MAX_PAGE = Math.floor(Number.MAX_SAFE_INTEGER / 2 / MAX_PER_PAGE);

/**
 * A paging parameter: decimal digits only (not `1e1`, `0x10`, ` 5` or an empty value, which a number coercion takes),
 * refused in one sentence with its range (a repeated one too: `?page=0&page=1`), not as zod's "received NaN".
 */
function wholeNumber(name: string, min: number, max: number) {
  const message = `${name} must be a whole number from ${min} to ${max}`;
  return z
    .string({ error: message })
    .regex(/^\d{1,16}$/, message)
    .pipe(z.coerce.number<string>().int(message).min(min, message).max(max, message));
}

export const pageQuery = ownerQuery.extend({
  page: wholeNumber('page', 0, MAX_PAGE).default(0),
  perPage: wholeNumber('perPage', 1, MAX_PER_PAGE).default(20),
});

export const threadIdParam = z.object({ threadId: safeId('threadId') });

export const threadPatch = z
  .object({
    title: label('title', 200).optional(),
    tags: tags.optional(),
  })
  .strict()
  .refine((patch) => patch.title !== undefined || patch.tags !== undefined, 'give title and/or tags')
  .meta({ minProperties: 1 });

const pagination = { page: z.number(), perPage: z.number(), total: z.number(), hasMore: z.boolean() };

export const threadList = z.object({ threads: z.array(threadSchema), ...pagination });

/** The stored metadata key of a reply that did not finish (written by the turn journal), read back as `interrupted: true`. */
export const INTERRUPTED_KEY = 'interrupted';

const threadMessage = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant', 'system']),
  content: z.string().describe('The text of the message'),
  createdAt: z.string().describe('ISO 8601'),
  interrupted: z.literal(true).optional().describe('A reply cut short (failure, timeout, disconnect, crash): what was said until then'),
});

export const messageList = z.object({ messages: z.array(threadMessage), ...pagination });

/** The personality a thread was stored with; `friend` for a thread stored without a valid one. */
export function storedPersonality(thread: StorageThreadType): Personality {
  const personality = thread.metadata?.personality;
  return isPersonality(personality) ? personality : DEFAULT_PERSONALITY;
}

/** A new thread's SPEC metadata as it is stored: created by this agent, its `createdAt` the record's. */
export function newThreadMetadata({ personality, tags }: { personality?: Personality; tags?: string[] }, createdAt: Date) {
  return { agentId: COMPANION_AGENT_ID, personality: personality ?? DEFAULT_PERSONALITY, createdAt: createdAt.toISOString(), tags: tags ?? [] };
}

export function toSpecThread(thread: StorageThreadType): SpecThread {
  const metadata = thread.metadata ?? {};
  return {
    id: thread.id,
    title: thread.title ?? '',
    resourceId: thread.resourceId,
    agentId: typeof metadata.agentId === 'string' ? metadata.agentId : COMPANION_AGENT_ID,
    createdAt: new Date(thread.createdAt).toISOString(),
    updatedAt: new Date(thread.updatedAt).toISOString(),
    metadata: {
      personality: storedPersonality(thread),
      createdAt: typeof metadata.createdAt === 'string' ? metadata.createdAt : new Date(thread.createdAt).toISOString(),
      tags: Array.isArray(metadata.tags) ? metadata.tags : [],
    },
  };
}

/**
 * A reply's text parts are pieces of one answer across its steps, read as one text as `/generate`'s `text` is;
 * the parts of a client's message were written apart (SPEC's content array): one a line, as Mastra's text of it has them.
 */
export function toThreadMessage(message: MastraDBMessage): z.infer<typeof threadMessage> {
  const parts = message.content?.parts ?? [];
  const text = parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join(message.role === 'assistant' ? '' : '\n');
  return {
    id: message.id,
    role: specRole(message),
    content: text || (typeof message.content?.content === 'string' ? message.content.content : ''),
    createdAt: new Date(message.createdAt).toISOString(),
    ...(message.content?.metadata?.[INTERRUPTED_KEY] === true && { interrupted: true as const }),
  };
}

/**
 * Studio (`mastra dev`) stores what its user types as a `signal` message of type `user`; other signals
 * are notes for the model. Read back, they are the user's message and the system's, as Mastra itself
 * gives them to the model.
 */
function specRole(message: MastraDBMessage): z.infer<typeof threadMessage>['role'] {
  if (message.role !== 'signal') return message.role;
  const signalType = (message.content?.metadata?.signal as { type?: unknown } | undefined)?.type;
  return signalType === 'user' || signalType === 'user-message' ? 'user' : 'system';
}
