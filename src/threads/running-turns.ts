/**
 * @module The turns this process is running, from their start to their end, for a shutdown to wait for: a turn
 * cut when the server closes its connections still stores its reply as far as it got (turn-journal.ts), and the
 * process must not exit before it has.
 */
export class RunningTurns {
  readonly #turns = new Set<Promise<void>>();

  /** Counts a turn as running until `end()`; ending it twice does nothing. */
  start(): { end(): void } {
    let end!: () => void;
    const ended = new Promise<void>((resolve) => (end = resolve));
    this.#turns.add(ended);
    return {
      end: () => {
        this.#turns.delete(ended);
        end();
      },
    };
  }

  /** Resolves when every turn running now has ended, or after `maxMs`. */
  async allEnded(maxMs: number): Promise<void> {
    if (this.#turns.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
    await Promise.race([Promise.all(this.#turns), deadline]);
    clearTimeout(timer);
  }
}
