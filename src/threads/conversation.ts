/**
 * @module Where a turn lives. Both ids → that thread of that user (created on first
 * use); `resourceId` alone → a new thread with a fresh id; neither → a
 * stateless turn; `threadId` alone → 400, because a thread always has an owner
 * and guessing an id must never be enough to read one.
 */
import { randomUUID } from 'node:crypto';
import type { MastraMemory, StorageThreadType } from '@mastra/core/memory';
import { invalidRequest, memoryNotInitialized } from '../contract/errors.ts';
import type { ConversationIds } from '../contract/shapes.ts';
import { storedPersonality } from '../contract/thread.ts';
import { DEFAULT_PERSONALITY, type Personality } from '../contract/personalities.ts';
import { createOwnedThread, findThreadForTurn, updateOwnedThread } from './thread-service.ts';

export interface ConversationRequest {
  threadId?: string;
  resourceId?: string;
  /** The turn's claim on a new thread id (turn.ts), so no other owner creates it meanwhile. */
  claimNewThread: () => Promise<void>;
  personality?: Personality;
  title: string;
  tags?: string[];
}

/** A turn's place once opened: the voice to answer in, and the ids of a stored conversation. */
export interface OpenedConversation {
  personality: Personality;
  /** Present for a stored conversation; absent for a stateless turn. */
  ids?: ConversationIds;
  /** The stored thread as this turn opened it (see turn-thread.ts). */
  thread?: StorageThreadType;
}

export async function openConversation(memory: MastraMemory | undefined, request: ConversationRequest): Promise<OpenedConversation> {
  const { threadId, resourceId } = request;
  if (!threadId && !resourceId) return { personality: request.personality ?? DEFAULT_PERSONALITY };
  if (!resourceId) {
    throw invalidRequest('threadId requires resourceId: a thread always belongs to a user', { field: 'resourceId' });
  }
  if (!memory) throw memoryNotInitialized();
  const id = threadId ?? randomUUID();
  const existing = await findThreadForTurn(memory, id, resourceId, request.claimNewThread);
  const thread = existing
    ? await updateIfChanged(memory, existing, request)
    : await createOwnedThread(memory, { threadId: id, resourceId, title: request.title, personality: request.personality, tags: request.tags });
  return { personality: storedPersonality(thread), ids: { threadId: id, resourceId }, thread };
}

/** A request that names a personality or tags changes the thread's stored ones. */
function updateIfChanged(memory: MastraMemory, opened: StorageThreadType, request: ConversationRequest) {
  const { personality, tags } = request;
  const personalityChanged = (thread: StorageThreadType) => personality && personality !== thread.metadata?.personality;
  if (!personalityChanged(opened) && !tags) return opened;
  return updateOwnedThread(memory, opened.id, opened.resourceId, (thread) =>
    personalityChanged(thread) || tags ? { metadata: { ...(personality && { personality }), ...(tags && { tags }) } } : {},
  );
}
