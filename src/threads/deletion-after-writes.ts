/**
 * @module A thread's deletion waits for the message saves in flight to it. A stopped turn lets its thread go after
 * a grace (turn.ts) even when its last save has not finished (a slow store); a deletion that went ahead would see
 * that save land after it, and the deleted thread's messages would be back under its id, read by its owner's next
 * turn there. The wait is bounded: a PostgreSQL statement has 30 s (storage.ts); a LibSQL write waits for the file's
 * lock for 5 s.
 */
import type { MemoryStorage } from '@mastra/core/storage';

type MessageStore = Pick<MemoryStorage, 'saveMessages' | 'deleteThread'>;

const MAX_WAIT_MS = 30_000;

export function deleteThreadsAfterTheirWrites(store: MessageStore): void {
  const inFlight = new Map<string, Set<Promise<unknown>>>();
  const save = store.saveMessages.bind(store);
  store.saveMessages = (args) => {
    const saving = save(args);
    for (const threadId of new Set(args.messages.map((message) => message.threadId))) {
      if (!threadId) continue;
      const saves = inFlight.get(threadId) ?? new Set();
      inFlight.set(threadId, saves.add(saving));
      const settled = () => {
        saves.delete(saving);
        if (saves.size === 0 && inFlight.get(threadId) === saves) inFlight.delete(threadId);
      };
      saving.then(settled, settled);
    }
    return saving;
  };
  const remove = store.deleteThread.bind(store);
  store.deleteThread = async (args) => {
    await settledWithin([...(inFlight.get(args.threadId) ?? [])], MAX_WAIT_MS);
    return remove(args);
  };
}

async function settledWithin(saves: readonly Promise<unknown>[], maxMs: number): Promise<void> {
  if (saves.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
  await Promise.race([Promise.allSettled(saves), deadline]);
  clearTimeout(timer);
}
