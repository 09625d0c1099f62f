/**
 * @module Stop signals (SIGTERM, SIGINT) before the service's shutdown is in place. Node's default ends the process,
 * but not as a container's PID 1 (`CMD ["node", …]` without an init): the kernel spares PID 1 every signal it has
 * no handler for, so a `docker stop` during start-up was ignored, and the container killed only when its grace
 * period ran out. So the process handles them itself from its first line: until then by exiting, with the status a
 * shell gives a process the signal ended (143 for SIGTERM). A signal that arrives while modules load (synchronous
 * work) is handled once they are loaded, by the handler in place then. No imports of the service here: the entry
 * points call this before the configuration.
 */
import { constants } from 'node:os';

export const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Ends the process as `signal` would have, with the status a shell gives it (143 for SIGTERM, 130 for SIGINT). */
export function exitForSignal(signal: NodeJS.Signals, host: Pick<NodeJS.Process, 'exit'> = process): void {
  host.exit(128 + constants.signals[signal]);
}

const exitAtOnce = (signal: NodeJS.Signals) => exitForSignal(signal);

/** From the first line of an entry point until `shutdownInPlace`. */
export function exitOnStopSignalsWhileStarting(): void {
  for (const signal of STOP_SIGNALS) process.once(signal, exitAtOnce);
}

/** The service handles the stop signals from now on (see shutdown-turns.ts). */
export function shutdownInPlace(host: Pick<NodeJS.Process, 'off'> = process): void {
  for (const signal of STOP_SIGNALS) host.off(signal, exitAtOnce);
}
