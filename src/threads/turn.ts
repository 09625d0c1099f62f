/**
 * @module One turn's life, from the request's arrival to its last byte. A turn
 * has one abort signal, the model call's, which fires when its client hangs up,
 * when it stops reading, or when the turn outgrows `timeoutMs` (queue wait
 * included), always with the `ApiError` that says why. A stored turn holds its
 * thread's lock until `end()`, which every exit path calls; `end()` also stops
 * the clock, so a turn can never keep its thread, or its timer, past its end.
 */
import { type ApiError, CLIENT_GONE, modelTimedOut } from '../contract/errors.ts';
import type { TurnLock } from './turn-lock.ts';

export interface TurnOptions {
  lock: TurnLock;
  /** The whole turn's budget, queue wait included (`MODEL_TIMEOUT_MS`). */
  timeoutMs: number;
}

export interface Turn {
  /** The model call's abort signal; its reason is the `ApiError` that stopped the turn. */
  readonly signal: AbortSignal;
  /** Stops the turn (first reason wins). */
  abort(reason: ApiError): void;
  /** The reason the turn was stopped, if it was. */
  stopped(): ApiError | undefined;
  /** Lets the thread's next turn in and stops the clock; calling it again does nothing. */
  end(): void;
}

/**
 * Starts a turn for a client whose connection is `clientSignal`, and waits for
 * the thread's earlier turns when there is a thread. Rejects (with nothing left
 * held) when the queue is full, the client leaves, or the time runs out first.
 */
export async function startTurn(threadId: string | undefined, clientSignal: AbortSignal, options: TurnOptions): Promise<Turn> {
  const controller = new AbortController();
  const abort = (reason: ApiError) => controller.abort(reason);
  const onClientGone = () => abort(CLIENT_GONE);
  // The error is made only if the clock runs out: building one (with its stack) costs on every turn.
  const clock = setTimeout(() => abort(modelTimedOut('turn', options.timeoutMs)), options.timeoutMs);
  clientSignal.addEventListener('abort', onClientGone, { once: true });
  if (clientSignal.aborted) onClientGone();
  const stopClock = () => {
    clearTimeout(clock);
    clientSignal.removeEventListener('abort', onClientGone);
  };

  let release: () => void;
  try {
    release = threadId ? await options.lock.acquire(threadId, controller.signal) : () => {};
  } catch (error) {
    stopClock();
    throw error;
  }
  return {
    signal: controller.signal,
    abort,
    stopped: () => (controller.signal.aborted ? (controller.signal.reason as ApiError) : undefined),
    end() {
      stopClock();
      release();
    },
  };
}
