/**
 * @module At most `size` tasks at a time, the others waiting in arrival order: the probe's ffprobe and ffmpeg,
 * one upload at a time per core, so a burst of uploads does not start a decoder each at once. A waiting task
 * whose signal aborts (its client left, its deadline passed) leaves the queue at once and never runs.
 */
export class Slots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Runs `task` once a slot is free; rejects with `signal.reason`, without running it, if the signal aborts first. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#take(signal);
    try {
      return await task();
    } finally {
      this.#give();
    }
  }

  #take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', leave);
        resolve();
      };
      const leave = () => {
        this.#waiting.splice(this.#waiting.indexOf(start), 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.#waiting.push(start);
    });
  }

  /** The slot goes straight to the first task waiting, if any. */
  #give() {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}
