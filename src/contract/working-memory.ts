/**
 * @module The working-memory API's answers (SPEC shows none; the README documents them): what the companion
 * keeps about one user (`resourceId`) across all of that user's threads, read and erased by its owner.
 */
import { z } from 'zod';
import type { StorageResourceType } from '@mastra/core/storage';

export const workingMemorySchema = z.object({
  resourceId: z.string().describe('The user'),
  workingMemory: z.string().nullable().describe('What the companion keeps about the user (Markdown); null when it keeps nothing'),
  updatedAt: z.string().nullable().describe('ISO 8601: when the companion last wrote it; null when it keeps nothing'),
});

export const workingMemoryErased = z.object({ resourceId: z.string(), deleted: z.literal(true) });

/** The user's working memory as the store holds it; an erased one is stored empty (the store cannot delete its row). */
export function toWorkingMemory(resourceId: string, resource: StorageResourceType | null): z.infer<typeof workingMemorySchema> {
  if (!resource?.workingMemory) return { resourceId, workingMemory: null, updatedAt: null };
  return { resourceId, workingMemory: resource.workingMemory, updatedAt: new Date(resource.updatedAt).toISOString() };
}
