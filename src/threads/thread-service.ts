import type { MastraMemory } from '@mastra/core/memory';
import { memoryNotInitialized, threadNotFound, withStore } from './conversation.ts';

/**
 * Thread operations on behalf of one owner (`resourceId`). Every operation
 * looks the thread up first and treats another owner's thread exactly like a
 * missing one, so ids cannot be probed.
 */
export function requireMemory(memory: MastraMemory | undefined): MastraMemory {
  if (!memory) throw memoryNotInitialized();
  return memory;
}

export async function getOwnedThread(memory: MastraMemory, threadId: string, resourceId: string) {
  const thread = await withStore(() => memory.getThreadById({ threadId }));
  if (!thread || thread.resourceId !== resourceId) throw threadNotFound(threadId);
  return thread;
}

export function listOwnedThreads(memory: MastraMemory, resourceId: string, page: number, perPage: number) {
  return withStore(() =>
    memory.listThreads({ filter: { resourceId }, page, perPage, orderBy: { field: 'updatedAt', direction: 'DESC' } }),
  );
}

export async function listThreadMessages(memory: MastraMemory, threadId: string, resourceId: string, page: number, perPage: number) {
  await getOwnedThread(memory, threadId, resourceId);
  return withStore(() =>
    memory.recall({ threadId, resourceId, page, perPage, orderBy: { field: 'createdAt', direction: 'ASC' } }),
  );
}

export async function updateOwnedThread(
  memory: MastraMemory,
  threadId: string,
  resourceId: string,
  patch: { title?: string; tags?: string[] },
) {
  const thread = await getOwnedThread(memory, threadId, resourceId);
  const metadata = thread.metadata ?? {};
  return withStore(() =>
    memory.updateThread({
      id: threadId,
      title: patch.title ?? thread.title ?? '',
      metadata: patch.tags ? { ...metadata, tags: patch.tags } : metadata,
    }),
  );
}

export async function deleteOwnedThread(memory: MastraMemory, threadId: string, resourceId: string) {
  await getOwnedThread(memory, threadId, resourceId);
  await withStore(() => memory.deleteThread(threadId));
}
