/**
 * @module Per-thread turn order. Turns on one thread run one after another, in
 * arrival order, so each turn sees the one before it and a thread's messages
 * are stored as user, assistant, user, assistant. Different threads never wait
 * on each other. The wait is bounded (`maxQueued` turns per thread) and
 * abortable: a turn whose client left, or whose time ran out, leaves the queue
 * before it ever reaches the model.
 *
 * A queue belongs to an owner and a thread, not to the thread id alone: the
 * owner is known before the store says whose the thread is, so a stranger
 * naming someone's thread id waits in a queue of their own (and then gets a
 * 404), never in the owner's.
 */
import { threadBusy } from '../contract/errors.ts';

/** Lets the thread's next turn in; calling it again does nothing. */
export type Release = () => void;

/**
 * What a turn waits for: the thread of `owner`; without an owner, the thread id
 * across all owners (held while a new thread is created, see `Turn.claimNewThread`).
 */
export interface TurnKey {
  owner?: string;
  threadId: string;
}

/** The key as one string. `/` is outside the safe id pattern, so no two keys share one. */
export function lockName(key: TurnKey): string {
  return key.owner === undefined ? key.threadId : `${key.owner}/${key.threadId}`;
}

export interface TurnLock {
  /**
   * Waits for the key's earlier turns, then resolves with the release of this one.
   * Rejects with `threadBusy` (429, naming only the thread id the caller sent) when
   * `maxQueued` turns already wait, and with the signal's reason when it aborts
   * before the turn's time has come. `onLost` is told if the lock is lost while held
   * (a lock kept in a database goes with its connection), so its holder can stop.
   */
  acquire(key: TurnKey, signal: AbortSignal, onLost?: (error: Error) => void): Promise<Release>;
  close(): Promise<void>;
}

interface Waiter {
  admit(release: Release): void;
}

interface ThreadQueue {
  waiters: Waiter[];
}

/** The lock of one process: enough for an embedded store, which only one process opens. */
export class InProcessTurnLock implements TurnLock {
  readonly #queues = new Map<string, ThreadQueue>();
  readonly #maxQueued: number;

  constructor(options: { maxQueued: number }) {
    this.#maxQueued = options.maxQueued;
  }

  acquire(key: TurnKey, signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const name = lockName(key);
    const queue = this.#queues.get(name);
    if (!queue) {
      this.#queues.set(name, { waiters: [] });
      return Promise.resolve(this.#releaseFor(name));
    }
    if (queue.waiters.length >= this.#maxQueued) return Promise.reject(threadBusy(key.threadId, this.#maxQueued));
    return new Promise<Release>((resolve, reject) => {
      const waiter: Waiter = {
        admit: (release) => {
          signal.removeEventListener('abort', leave);
          resolve(release);
        },
      };
      const leave = () => {
        queue.waiters.splice(queue.waiters.indexOf(waiter), 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', leave, { once: true });
      queue.waiters.push(waiter);
    });
  }

  async close() {}

  /** Hands the key to its next waiter, or frees it. */
  #releaseFor(name: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queues.get(name)?.waiters.shift();
      if (next) next.admit(this.#releaseFor(name));
      else this.#queues.delete(name);
    };
  }
}
