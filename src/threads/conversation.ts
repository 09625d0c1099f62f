import { randomUUID } from 'node:crypto';
import type { MastraMemory, StorageThreadType } from '@mastra/core/memory';
import { ApiError, invalidRequest } from '../contract/errors.ts';
import { DEFAULT_PERSONALITY, isPersonality, type Personality } from '../mastra/agents/personalities.ts';

export const AGENT_ID = 'companionAgent';

/**
 * Where a turn lives. Both ids → that thread of that user (created on first
 * use); `resourceId` alone → a new thread with a fresh id; neither → a
 * stateless turn; `threadId` alone → 400, because a thread always has an owner
 * and guessing an id must never be enough to read one.
 */
export interface ConversationRequest {
  threadId?: string;
  resourceId?: string;
  personality?: Personality;
  title: string;
  tags?: string[];
}

export interface Conversation {
  personality: Personality;
  /** Present for a stored conversation; what the agent's `memory` option needs. */
  thread?: { threadId: string; resourceId: string };
}

export async function openConversation(memory: MastraMemory | undefined, request: ConversationRequest): Promise<Conversation> {
  const { threadId, resourceId } = request;
  if (!threadId && !resourceId) return { personality: request.personality ?? DEFAULT_PERSONALITY };
  if (!resourceId) {
    throw invalidRequest('threadId requires resourceId: a thread always belongs to a user', { field: 'resourceId' });
  }
  if (!memory) throw memoryNotInitialized();
  const id = threadId ?? randomUUID();
  const existing = await withStore(() => memory.getThreadById({ threadId: id }));
  if (existing && existing.resourceId !== resourceId) throw threadNotFound(id);
  const thread = existing
    ? await updateIfChanged(memory, existing, request)
    : await withStore(() =>
        memory.createThread({
          threadId: id,
          resourceId,
          title: request.title,
          metadata: {
            agentId: AGENT_ID,
            personality: request.personality ?? DEFAULT_PERSONALITY,
            createdAt: new Date().toISOString(),
            tags: request.tags ?? [],
          },
        }),
      );
  return { personality: storedPersonality(thread), thread: { threadId: id, resourceId } };
}

async function updateIfChanged(memory: MastraMemory, thread: StorageThreadType, request: ConversationRequest) {
  const metadata = thread.metadata ?? {};
  const personalityChanged = request.personality && request.personality !== metadata.personality;
  if (!personalityChanged && !request.tags) return thread;
  return withStore(() =>
    memory.updateThread({
      id: thread.id,
      title: thread.title ?? request.title,
      metadata: {
        ...metadata,
        personality: request.personality ?? metadata.personality,
        tags: request.tags ?? metadata.tags ?? [],
      },
    }),
  );
}

function storedPersonality(thread: StorageThreadType): Personality {
  const personality = thread.metadata?.personality;
  return isPersonality(personality) ? personality : DEFAULT_PERSONALITY;
}

export function threadNotFound(threadId: string) {
  return new ApiError(404, 'NOT_FOUND', `Thread ${threadId} was not found for this resource.`, { threadId });
}

export function memoryNotInitialized(cause?: unknown) {
  return new ApiError(
    500,
    'MEMORY_NOT_INITIALIZED',
    cause
      ? 'The conversation store is unreachable; this request needs memory (threadId/resourceId). Stateless requests still work.'
      : 'Conversation memory is switched off (DATABASE_URL is empty or "none"); send the request without threadId/resourceId, or configure DATABASE_URL.',
    {},
    cause,
  );
}

/** Store failures become MEMORY_NOT_INITIALIZED rather than an anonymous 500. */
export async function withStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw memoryNotInitialized(error);
  }
}
