/**
 * @module Turns on one thread run one after another (in this process), so each turn
 * sees the one before it and a thread's messages are stored in turn order:
 * user, assistant, user, assistant. Different threads never wait on each other.
 */
const tails = new Map<string, Promise<void>>();

/** Waits for the thread's previous turn, then returns the function that lets the next one in. */
export async function lockThread(threadId: string): Promise<() => void> {
  const previous = tails.get(threadId) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>((resolve) => (release = resolve));
  const tail = previous.then(() => current);
  tails.set(threadId, tail);
  await previous;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    release();
    if (tails.get(threadId) === tail) tails.delete(threadId);
  };
}
