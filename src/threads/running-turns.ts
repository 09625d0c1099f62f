/**
 * @module The turns this process is running, from their start to their end, for a shutdown: it stops those still
 * running shortly before the server closes their connections, so each client gets its `error` event, and waits for
 * them to store their replies as far as they got (turn-journal.ts) before the process exits.
 */
import type { ApiError } from '../contract/errors.ts';
import { settledWithin } from './settled-within.ts';

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
  allEnded(maxMs: number): Promise<void> {
    return settledWithin([...this.#turns].map((turn) => turn.ended), maxMs);
  }
}
