/**
 * @module One turn's life, from the request's arrival to its last byte. A turn
 * has one abort signal, the model call's, which fires when its client hangs up,
 * when it stops reading, or when the turn outgrows `timeoutMs` (queue wait
 * included), always with the `ApiError` that says why. A stored turn holds its
 * thread's lock until `end()`, which every exit path calls; `end()` also stops
 * the clock, so a turn can never keep its thread, or its timer, past its end.
 * A stopped turn gets `STOPPED_TURN_GRACE_MS` to store what it has; after that
 * its thread is let go even if its writer never finishes (a client that stopped
 * reading cannot hold its thread). A shutdown stops the running turns and waits for
 * them to end (running-turns.ts).
 *
 * Both wire formats (SPEC and Mastra's native one) run their turns through here.
 */
import { type ApiError, CLIENT_GONE, isThreadBusy, modelTimedOut, storeFailedDuringTurn, threadNotFound } from '../contract/errors.ts';
import type { RunningTurns } from './running-turns.ts';
import type { Release, TurnLock } from './turn-lock.ts';

/** How long a stopped run may take to store what it has before its thread is let go anyway. */
export const STOPPED_TURN_GRACE_MS = 5_000;

export interface TurnOptions {
  lock: TurnLock;
  running: RunningTurns;
  /** The whole turn's budget, queue wait included (`MODEL_TIMEOUT_MS`). */
  timeoutMs: number;
}

/** The stored thread a turn runs on, as its request names it: the owner is the caller (or the named user without auth). */
export interface TurnThread {
  owner: string;
  threadId: string;
}

export interface Turn {
  /** The model call's abort signal; its reason is the `ApiError` that stopped the turn. */
  readonly signal: AbortSignal;
  /** Stops the turn (first reason wins). */
  abort(reason: ApiError): void;
  /** The reason the turn was stopped, if it was. */
  stopped(): ApiError | undefined;
  /**
   * For a thread the store does not hold yet: until the turn ends, no other
   * owner's turn can claim the same id, so two users can never both create it
   * (the store's thread write is an upsert that would hand it to the later one).
   */
  claimNewThread(): Promise<void>;
  /**
   * The turn's opening (its thread read, created or changed), within the turn's time: rejects with the turn's stop
   * reason as soon as it stops. An opening that fails or is cut short ends the turn once it has settled (or the
   * stopped turn's grace has passed): it may still be writing the thread.
   */
  open<T>(opening: Promise<T>): Promise<T>;
  /** Lets the thread's next turn in and stops the clock; calling it again does nothing. */
  end(): void;
}

/**
 * Starts a turn for a client whose connection is `clientSignal`, and waits for
 * the owner's earlier turns on the thread when there is one. Rejects (with
 * nothing left held) when the queue is full, the client leaves, or the time
 * runs out first.
 */
export async function startTurn(thread: TurnThread | undefined, clientSignal: AbortSignal, options: TurnOptions): Promise<Turn> {
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

  // A lock lost while held (its database connection went) lets another replica's turn on the thread run: this one stops.
  const onLockLost = (error: Error) => abort(storeFailedDuringTurn(error));
  const held: Release[] = [];
  const tracked = options.running.start(abort);
  try {
    if (thread) held.push(await options.lock.acquire(thread, controller.signal, onLockLost));
  } catch (error) {
    stopClock();
    tracked.end();
    throw error;
  }
  let ended = false;
  let grace: NodeJS.Timeout | undefined;
  const startGrace = () => (grace = setTimeout(end, STOPPED_TURN_GRACE_MS));
  function end() {
    ended = true;
    stopClock();
    clearTimeout(grace);
    controller.signal.removeEventListener('abort', startGrace);
    for (const release of held.splice(0).reverse()) release();
    tracked.end();
  }
  if (controller.signal.aborted) startGrace();
  else controller.signal.addEventListener('abort', startGrace, { once: true });
  const stopping = new Promise<never>((_, reject) => {
    const rejectWithReason = () => reject(controller.signal.reason);
    if (controller.signal.aborted) rejectWithReason();
    else controller.signal.addEventListener('abort', rejectWithReason, { once: true });
  });
  // Rejections are read where the turn is opened; one the turn no longer waits for is not a failure.
  stopping.catch(() => {});
  return {
    signal: controller.signal,
    abort,
    stopped: () => (controller.signal.aborted ? (controller.signal.reason as ApiError) : undefined),
    async claimNewThread() {
      if (!thread) return;
      const { threadId } = thread;
      const release = await options.lock.acquire({ threadId }, controller.signal, onLockLost).catch((error: unknown) => {
        // Only another owner's turn holds the claim (the owner's own turns wait in the owner's queue first): a claim
        // refused for a full queue (MAX_QUEUED_TURNS=0 lets none wait) is that owner's thread, as the thread API answers it.
        throw isThreadBusy(error) ? threadNotFound(threadId) : error;
      });
      if (ended) release();
      else held.push(release);
    },
    open(opening) {
      return Promise.race([opening, stopping]).catch((error: unknown) => {
        opening.then(end, end);
        throw error;
      });
    },
    end,
  };
}
