/** @module A bounded wait for work the caller does not own: a shutdown for its turns, a deletion for its thread's saves. */

/** Resolves once every one of `promises` has settled, or after `maxMs`, whichever comes first. */
export async function settledWithin(promises: readonly Promise<unknown>[], maxMs: number): Promise<void> {
  if (promises.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
  await Promise.race([Promise.allSettled(promises), deadline]);
  clearTimeout(timer);
}
