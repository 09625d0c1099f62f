/**
 * @module A user's working memory (`resourceId` scope: Mastra's `updateWorkingMemory` tool writes it into the
 * store's resource row), read and erased on its owner's behalf. It outlives the user's threads: deleting them
 * leaves it, so it has its own erase.
 */
import type { MastraMemory } from '@mastra/core/memory';
import type { MemoryStorage } from '@mastra/core/storage';
import { memoryNotInitialized } from '../contract/errors.ts';
import { toWorkingMemory } from '../contract/working-memory.ts';
import { withStore } from './thread-service.ts';

async function memoryStoreOf(memory: MastraMemory): Promise<MemoryStorage> {
  const store = await withStore(() => memory.storage.getStore('memory'));
  if (!store) throw memoryNotInitialized();
  return store;
}

export async function readWorkingMemory(memory: MastraMemory, resourceId: string) {
  const store = await memoryStoreOf(memory);
  return toWorkingMemory(resourceId, await withStore(() => store.getResourceById({ resourceId })));
}

/**
 * Empties the stored text, which Mastra reads as no working memory; the row's other fields stay (the store has
 * no way to delete it). Nothing stored, nothing written. A turn of the user running meanwhile is not waited for
 * (turns wait per thread, and a user's turns may start new threads): the README says what it may write back.
 */
export async function eraseWorkingMemory(memory: MastraMemory, resourceId: string): Promise<void> {
  const store = await memoryStoreOf(memory);
  const resource = await withStore(() => store.getResourceById({ resourceId }));
  if (resource?.workingMemory) await withStore(() => store.updateResource({ resourceId, workingMemory: '' }));
}
