/**
 * @module Thread storage on behalf of one owner (`resourceId`), shared by the agent
 * routes and the thread API. Every operation looks the thread up first and
 * treats another owner's thread exactly like a missing one, so ids cannot be
 * probed; store failures become MEMORY_NOT_INITIALIZED.
 */
import type { MastraDBMessage, MastraMemory, StorageThreadType } from '@mastra/core/memory';
import { CLIENT_GONE, memoryNotInitialized, messageNotFound, threadNotFound } from '../contract/errors.ts';
import { InProcessTurnLock, type Release, type TurnKey, type TurnLock } from './turn-lock.ts';
import { newThreadMetadata } from '../contract/thread.ts';
import type { Personality } from '../contract/personalities.ts';

/** A store operation whose failure is the client's MEMORY_NOT_INITIALIZED (the cause kept for the log). */
export async function withStore<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw memoryNotInitialized(error);
  }
}

export function requireMemory(memory: MastraMemory | undefined): MastraMemory {
  if (!memory) throw memoryNotInitialized();
  return memory;
}

/** The owner's thread, `null` when there is none yet; another owner's thread is a 404. */
export async function findOwnedThread(memory: MastraMemory, threadId: string, resourceId: string) {
  const thread = await withStore(() => memory.getThreadById({ threadId }));
  if (thread && thread.resourceId !== resourceId) throw threadNotFound(threadId);
  return thread;
}

/**
 * The owner's thread for a turn, `null` when it is new. A new id is claimed
 * first (`claimNewThread`, see turn.ts) and looked up again: another owner may
 * have created it meanwhile, and then it is theirs (a 404).
 */
export async function findThreadForTurn(memory: MastraMemory, threadId: string, resourceId: string, claimNewThread: () => Promise<void>) {
  const thread = await findOwnedThread(memory, threadId, resourceId);
  if (thread) return thread;
  await claimNewThread();
  return findOwnedThread(memory, threadId, resourceId);
}

/**
 * Refuses (404) saving messages under ids that another owner's messages hold. Mastra's message writes (its message
 * save, a native turn's messages in development) are upserts by id that check only the thread they write to: naming
 * a stored id moved that message, rewritten, into the caller's thread. `ownerOf` gives the owner a message would be
 * saved for.
 */
export async function refuseOthersMessages<M>(memory: MastraMemory, messages: readonly M[], ownerOf: (message: M) => string | undefined) {
  const owners = new Map<string, Set<string | undefined>>();
  for (const message of messages) {
    const id = (message as { id?: unknown } | null)?.id;
    // Mastra keeps a number as it came, and PostgreSQL then matches it against the stored text id.
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    owners.set(String(id), (owners.get(String(id)) ?? new Set()).add(ownerOf(message)));
  }
  if (owners.size === 0) return;
  const stored = await withStore(() => storedMessagesById(memory, [...owners.keys()]));
  const threadIds = [...new Set(stored.flatMap((message) => message.threadId ?? []))];
  const threads = await withStore(() => Promise.all(threadIds.map((threadId) => memory.getThreadById({ threadId }))));
  const threadOwners = new Map(threadIds.map((threadId, i) => [threadId, threads[i]?.resourceId]));
  for (const message of stored) {
    const owner = (message.threadId && threadOwners.get(message.threadId)) ?? message.resourceId;
    if ([...owners.get(message.id)!].some((savedFor) => savedFor !== owner)) throw messageNotFound(message.id);
  }
}

/** The stored messages among `messageIds` (Mastra's own lookup takes no owner: the callers check it). */
export async function storedMessagesById(memory: MastraMemory, messageIds: string[]): Promise<MastraDBMessage[]> {
  return (await (await memory.storage.getStore('memory'))?.listMessagesById({ messageIds }))?.messages ?? [];
}

export async function getOwnedThread(memory: MastraMemory, threadId: string, resourceId: string) {
  const thread = await findOwnedThread(memory, threadId, resourceId);
  if (!thread) throw threadNotFound(threadId);
  return thread;
}

/** The record's `createdAt` and its SPEC metadata's `createdAt` are one instant (Mastra would stamp its own). */
export function createOwnedThread(
  memory: MastraMemory,
  thread: { threadId: string; resourceId: string; title: string; personality?: Personality; tags?: string[] },
) {
  const now = new Date();
  const { threadId: id, resourceId, title } = thread;
  const metadata = newThreadMetadata(thread, now);
  return withStore(() => memory.saveThread({ thread: { id, resourceId, title, createdAt: now, updatedAt: now, metadata } }));
}

export interface ThreadChange {
  title?: string;
  metadata?: Record<string, unknown>;
}

/**
 * Changes the owner's thread: `change` gets the thread as stored and names the title and/or metadata fields to set
 * (nothing: the thread stays as it is). The store writes the whole record, so each change reads it first, one change
 * at a time per thread: a rename and a tags change sent together both land, and a rename does not undo a turn's
 * personality change. A thread deleted in the meantime is a 404.
 */
export async function updateOwnedThread(memory: MastraMemory, threadId: string, resourceId: string, change: (thread: StorageThreadType) => ThreadChange) {
  const release = await changeLockOf(memory).acquire({ owner: resourceId, threadId }, NEVER_ABORTED);
  try {
    const thread = await getOwnedThread(memory, threadId, resourceId);
    const { title, metadata } = change(thread);
    if (title === undefined && metadata === undefined) return thread;
    try {
      return await memory.updateThread({ id: threadId, title: title ?? thread.title ?? '', metadata: { ...thread.metadata, ...metadata } });
    } catch (error) {
      if (!(await withStore(() => memory.getThreadById({ threadId })))) throw threadNotFound(threadId);
      throw memoryNotInitialized(error);
    }
  } finally {
    release();
  }
}

/** The thread changes of this process, one at a time per thread and store: a queue like the turns', but unbounded and short. */
const changeLocks = new WeakMap<MastraMemory, InProcessTurnLock>();
const NEVER_ABORTED = new AbortController().signal;

function changeLockOf(memory: MastraMemory): InProcessTurnLock {
  let lock = changeLocks.get(memory);
  if (!lock) changeLocks.set(memory, (lock = new InProcessTurnLock({ maxQueued: Infinity })));
  return lock;
}

export function listOwnedThreads(memory: MastraMemory, resourceId: string, page: number, perPage: number) {
  return withStore(() =>
    memory.listThreads({ filter: { resourceId }, page, perPage, orderBy: { field: 'updatedAt', direction: 'DESC' } }),
  );
}

export async function listThreadMessages(memory: MastraMemory, threadId: string, resourceId: string, page: number, perPage: number) {
  await getOwnedThread(memory, threadId, resourceId);
  // Every stored message is the user's, and counted in `total`: recall hides Mastra's signals and any message
  // starting with "<system-reminder" unless told not to (after counting), which left pages short.
  return withStore(() =>
    memory.recall({ threadId, resourceId, page, perPage, orderBy: { field: 'createdAt', direction: 'ASC' }, hideSignals: false }),
  );
}

/**
 * A deletion's place in the thread's queue: resolves once the thread's running turn (and those queued
 * before it) ended, with the release of this place. A client that leaves while it waits is CLIENT_GONE.
 */
export async function waitForThreadTurns(lock: TurnLock, key: TurnKey, signal: AbortSignal): Promise<Release> {
  return lock.acquire(key, signal).catch((error: unknown) => {
    throw signal.aborted ? CLIENT_GONE : error;
  });
}

/**
 * Waits for the thread's running turn (and those queued before it) to end, so
 * what they store goes with the thread rather than outliving it.
 */
export async function deleteOwnedThread(
  memory: MastraMemory,
  threadId: string,
  resourceId: string,
  turns: { lock: TurnLock; signal: AbortSignal },
) {
  const release = await waitForThreadTurns(turns.lock, { owner: resourceId, threadId }, turns.signal);
  try {
    await getOwnedThread(memory, threadId, resourceId);
    await withStore(() => memory.deleteThread(threadId));
  } finally {
    release();
  }
}
