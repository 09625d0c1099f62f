/**
 * @module Per-thread turn order. Turns on one thread run one after another, in
 * arrival order, so each turn sees the one before it and a thread's messages
 * are stored as user, assistant, user, assistant. Different threads never wait
 * on each other. The wait is bounded (`maxQueued` turns per thread) and
 * abortable: a turn whose client left, or whose time ran out, leaves the queue
 * before it ever reaches the model.
 */
import { threadBusy } from '../contract/errors.ts';

/** Lets the thread's next turn in; calling it again does nothing. */
export type Release = () => void;

export interface TurnLock {
  /**
   * Waits for the thread's earlier turns, then resolves with the release of this one.
   * Rejects with `threadBusy` (429) when `maxQueued` turns already wait, and with the
   * signal's reason when it aborts before the turn's time has come.
   */
  acquire(threadId: string, signal: AbortSignal): Promise<Release>;
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

  acquire(threadId: string, signal: AbortSignal): Promise<Release> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const queue = this.#queues.get(threadId);
    if (!queue) {
      this.#queues.set(threadId, { waiters: [] });
      return Promise.resolve(this.#releaseFor(threadId));
    }
    if (queue.waiters.length >= this.#maxQueued) return Promise.reject(threadBusy(threadId, this.#maxQueued));
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

  /** Hands the thread to its next waiter, or frees it. */
  #releaseFor(threadId: string): Release {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#queues.get(threadId)?.waiters.shift();
      if (next) next.admit(this.#releaseFor(threadId));
      else this.#queues.delete(threadId);
    };
  }
}
