/**
 * @module On SIGTERM (or SIGINT) Mastra's server takes no new connections and gives the open ones
 * `SHUTDOWN_DRAIN_MS` to finish, then closes them: a turn still running then would only see its connection cut,
 * its client no `error` event. So the turns still running a moment before the drain ends are stopped
 * (SERVICE_STOPPING) while their connections are open: each stream ends with its `error` event, each reply is
 * stored as far as it got, and the process exits once they have ended (CompanionMastra in app.ts).
 */
import { SERVICE_STOPPING } from './contract/errors.ts';
import { exitForSignal, shutdownInPlace, STOP_SIGNALS } from './stop-signals.ts';
import type { RunningTurns } from './threads/running-turns.ts';

/** Time for a stopped turn to send its `error` event and store its reply before the connections close. */
const STOP_BEFORE_THE_DRAIN_ENDS_MS = 1_000;

/** What of `process` the signal handling uses. */
export type SignalledProcess = Pick<NodeJS.Process, 'once' | 'off' | 'listenerCount' | 'exit'>;

export function stopTurnsBeforeTheDrainEnds(turns: RunningTurns, drainTimeoutMs: number, host: SignalledProcess = process): void {
  const stopLater = (signal: NodeJS.Signals) => {
    // Mastra installs its shutdown once the server has started its workers (with tracing on, well after it listens).
    // A signal before that has no one else to stop the process, and a listener takes away Node's default: without
    // this, the process went on running. It exits, as it would have while starting (stop-signals.ts).
    if (host.listenerCount(signal) === 0) {
      exitForSignal(signal, host);
      return;
    }
    setTimeout(() => turns.stopAll(SERVICE_STOPPING), Math.max(0, drainTimeoutMs - STOP_BEFORE_THE_DRAIN_ENDS_MS)).unref();
  };
  for (const signal of STOP_SIGNALS) host.once(signal, stopLater);
  shutdownInPlace(host);
}
