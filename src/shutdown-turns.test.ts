import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiError } from './contract/errors.ts';
import { stopTurnsBeforeTheDrainEnds, type SignalledProcess } from './shutdown-turns.ts';
import { RunningTurns } from './threads/running-turns.ts';

/** A process whose signals the test sends, and which records the statuses it was told to exit with. */
function fakeProcess() {
  const events = new EventEmitter();
  const exited: number[] = [];
  const host = Object.assign(events, { exit: (status: number) => void exited.push(status) });
  return { host: host as unknown as SignalledProcess & EventEmitter, exited };
}

/** A running turn, and the reason it was stopped with, if it was. */
function runningTurn(turns: RunningTurns) {
  const stopped: ApiError[] = [];
  turns.start((reason) => stopped.push(reason));
  return stopped;
}

describe('stopTurnsBeforeTheDrainEnds', () => {
  afterEach(() => vi.useRealTimers());

  it("stops the running turns a second before the drain ends, beside Mastra's own shutdown", () => {
    vi.useFakeTimers();
    const { host, exited } = fakeProcess();
    const turns = new RunningTurns();
    const stopped = runningTurn(turns);
    stopTurnsBeforeTheDrainEnds(turns, 5_000, host);
    host.on('SIGTERM', () => {}); // Mastra's shutdown, installed once the server has started

    host.emit('SIGTERM', 'SIGTERM');
    vi.advanceTimersByTime(3_999);
    expect(stopped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stopped.map((reason) => reason.code)).toEqual(['MODEL_ERROR']);
    expect(exited).toEqual([]);
  });

  it('a signal before Mastra has its shutdown in place exits with the status a shell gives the signal (PID 1 would ignore it sent again)', () => {
    const { host, exited } = fakeProcess();
    const turns = new RunningTurns();
    stopTurnsBeforeTheDrainEnds(turns, 5_000, host);

    host.emit('SIGINT', 'SIGINT');
    host.emit('SIGTERM', 'SIGTERM');
    expect(exited).toEqual([130, 143]);
  });
});
