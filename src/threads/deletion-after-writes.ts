/**
 * @module A deleted thread gets no message back. A stopped turn lets its thread go after a grace (turn.ts) even when
 * it has not finished writing (a slow store), and a deletion queued behind it then goes ahead: a save of that turn
 * landing after the deletion would put its messages back under the id, where the owner's next turn would read them.
 * So a deletion waits for the saves in flight to its thread, and a save that comes later is dropped, until the
 * thread is created anew. Both within this process: a turn runs where its thread's lock is (one process per LibSQL
 * file; on PostgreSQL, the replica holding it).
 */
import type { MemoryStorage } from '@mastra/core/storage';
import { settledWithin } from './settled-within.ts';

type MessageStore = Pick<MemoryStorage, 'saveMessages' | 'saveThread' | 'deleteThread'>;

/** The longest a deletion waits for a save: a PostgreSQL statement's own bound (storage.ts); SQLite's busy wait is 5 s. */
const MAX_WAIT_MS = 30_000;
/** How long a deleted thread refuses late saves: far longer than any stopped turn writes. */
const LATE_SAVE_WINDOW_MS = 10 * 60_000;

export function deleteThreadsAfterTheirWrites(store: MessageStore): void {
  const inFlight = new Map<string, Set<Promise<unknown>>>();
  const deletedAt = new Map<string, number>();

  const save = store.saveMessages.bind(store);
  store.saveMessages = (args) => {
    const messages = args.messages.filter((message) => !deletedAt.has(message.threadId ?? ''));
    if (messages.length === 0) return Promise.resolve({ messages: [] });
    const saving = save({ ...args, messages });
    for (const threadId of new Set(messages.map((message) => message.threadId ?? ''))) track(inFlight, threadId, saving);
    return saving;
  };

  const saveThread = store.saveThread.bind(store);
  store.saveThread = (args) => {
    deletedAt.delete(args.thread.id);
    return saveThread(args);
  };

  const remove = store.deleteThread.bind(store);
  store.deleteThread = async (args) => {
    const now = Date.now();
    for (const [threadId, at] of deletedAt) if (now - at > LATE_SAVE_WINDOW_MS) deletedAt.delete(threadId);
    // From here on its saves are dropped; those already running land before the deletion.
    deletedAt.set(args.threadId, now);
    try {
      await settledWithin([...(inFlight.get(args.threadId) ?? [])], MAX_WAIT_MS);
      await remove(args);
    } catch (error) {
      deletedAt.delete(args.threadId);
      throw error;
    }
  };
}

function track(inFlight: Map<string, Set<Promise<unknown>>>, threadId: string, saving: Promise<unknown>) {
  const saves = inFlight.get(threadId) ?? new Set();
  inFlight.set(threadId, saves.add(saving));
  const settled = () => {
    saves.delete(saving);
    if (saves.size === 0 && inFlight.get(threadId) === saves) inFlight.delete(threadId);
  };
  saving.then(settled, settled);
}
