/**
 * @module The turns this process is running, from their start to their end, for a shutdown: it stops those still
 * running shortly before the server closes their connections, so each client gets its `error` event, and waits for
 * them to store their replies as far as they got (turn-journal.ts) before the process exits.
 */
import type { ApiError } from '../contract/errors.ts';

interface RunningTurn {
  stop(reason: ApiError): void;
  ended: Promise<void>;
}

export class RunningTurns {
  readonly #turns = new Set<RunningTurn>();

  /** Counts a turn as running until `end()`; `stop` stops it. Ending it twice does nothing. */
  start(stop: (reason: ApiError) => void): { end(): void } {
    let end!: () => void;
    const turn: RunningTurn = { stop, ended: new Promise<void>((resolve) => (end = resolve)) };
    this.#turns.add(turn);
    return {
      end: () => {
        this.#turns.delete(turn);
        end();
      },
    };
  }

  stopAll(reason: ApiError): void {
    for (const turn of this.#turns) turn.stop(reason);
  }

  /** Resolves when every turn running now has ended, or after `maxMs`. */
  async allEnded(maxMs: number): Promise<void> {
    if (this.#turns.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, maxMs)));
    await Promise.race([Promise.all([...this.#turns].map((turn) => turn.ended)), deadline]);
    clearTimeout(timer);
  }
}
