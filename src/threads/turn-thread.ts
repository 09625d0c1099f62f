/**
 * @module A turn reads its thread once. Opening the conversation reads the
 * thread (owner, personality); the turn then reads it four times more:
 * Mastra preparing memory, the turn journal before storing the user's message,
 * Mastra before storing the reply and when the run finishes. A stored turn
 * holds its thread's lock from before it opens the conversation until it ends
 * (turn.ts), and a thread's deletion waits for that lock too, so within the
 * turn the thread is the one the turn opened (a stopped turn lets the lock go
 * after its grace: its late writes to a thread deleted since are dropped, see
 * deletion-after-writes.ts): inside `runInTurnScope`, the
 * memory store answers reads of that thread from it. Should the turn itself
 * write the thread (none does today; a thread-scoped working memory would), its
 * later reads go to the store again. Everything outside the turn's async
 * context (the thread API, other turns) reads the store as before.
 *
 * The turn's context also keeps whether the turn's latest message save failed:
 * Mastra records a reply it could not store on its run and ends the run as usual,
 * which a native stream's `finish` then reports as a success (native-call.ts).
 * The reply is the turn's last save; a draft that failed before it (the turn
 * journal's, which the turn goes on without) is cleared by the saves after it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { StorageThreadType } from '@mastra/core/memory';
import type { MemoryStorage } from '@mastra/core/storage';

type ThreadStore = Pick<MemoryStorage, 'getThreadById' | 'saveThread' | 'updateThread' | 'deleteThread' | 'saveMessages'>;

/** A stored turn's async context. */
export interface TurnScope {
  /** The turn's thread as it opened it; dropped once the turn writes it. */
  thread?: StorageThreadType;
  /** Why the turn's latest save of its messages failed; `undefined` when it landed. */
  failedSave?: unknown;
  /** The run has begun storing its result (`markRunStoring`): a save that fails from then on is its last. */
  storing?: boolean;
  /**
   * Settles once the turn's run is done storing its messages, finished or stopped: its last output processor ran
   * (`markRunStored`), or a save of its result failed, after which nothing more is stored.
   */
  readonly runStored: Promise<void>;
  readonly markRunStored: () => void;
}

const turnScope = new AsyncLocalStorage<TurnScope>();

/** The scope of a stored turn on `thread`, as it opened it. */
export function createTurnScope(thread: StorageThreadType): TurnScope {
  let markRunStored!: () => void;
  const runStored = new Promise<void>((resolve) => (markRunStored = resolve));
  return { thread, runStored, markRunStored };
}

/** Tells the running turn, if any, that its run begins storing its result (the turn journal's result step). */
export function markRunStoring(): void {
  const scope = turnScope.getStore();
  if (scope) scope.storing = true;
}

/** Tells the running turn, if any, that its run has stored its messages (the run-stored processor). */
export function markRunStored(): void {
  turnScope.getStore()?.markRunStored();
}

/** Runs a stored turn's agent call (and everything it starts) in its scope: with the thread as the turn opened it. */
export function runInTurnScope<T>(scope: TurnScope | undefined, run: () => T): T {
  return scope ? turnScope.run(scope, run) : run();
}

/** Makes the memory store answer the running turn's reads of its own thread without a query, and note its failed saves. */
export function serveTurnScope(store: ThreadStore): void {
  const read = store.getThreadById.bind(store);
  store.getThreadById = async (args) => {
    const thread = turnScope.getStore()?.thread;
    const isTurnThread = thread?.id === args.threadId && (args.resourceId === undefined || args.resourceId === thread.resourceId);
    // A copy, as a query would give: a caller that sets a field or a metadata entry of what it got leaves the turn's thread as it was.
    return isTurnThread ? { ...thread, metadata: thread.metadata && { ...thread.metadata } } : read(args);
  };
  const save = store.saveThread.bind(store);
  store.saveThread = (args) => {
    forget(args.thread.id);
    return save(args);
  };
  const update = store.updateThread.bind(store);
  store.updateThread = (args) => {
    forget(args.id);
    return update(args);
  };
  const remove = store.deleteThread.bind(store);
  store.deleteThread = (args) => {
    forget(args.threadId);
    return remove(args);
  };
  const saveMessages = store.saveMessages.bind(store);
  store.saveMessages = async (args) => {
    const scope = turnScope.getStore();
    try {
      const saved = await saveMessages(args);
      if (scope) scope.failedSave = undefined;
      return saved;
    } catch (error) {
      if (scope) {
        scope.failedSave = error;
        // Mastra skips the output processors after one that throws: the run-stored one would never say so.
        if (scope.storing) scope.markRunStored();
      }
      throw error;
    }
  };
}

/** A turn that writes its own thread reads it from the store from then on. */
function forget(threadId: string) {
  const turn = turnScope.getStore();
  if (turn?.thread?.id === threadId) turn.thread = undefined;
}
