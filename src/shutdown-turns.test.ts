import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiError } from './contract/errors.ts';
import { stopTurnsBeforeTheDrainEnds, type SignalledProcess } from './shutdown-turns.ts';
import { RunningTurns } from './threads/running-turns.ts';

/** A process whose signals the test sends, and which records what it was told to kill. */
function fakeProcess() {
  const events = new EventEmitter();
  const killed: Array<[number, string]> = [];
  const kill = (pid: number, signal: string) => {
    killed.push([pid, signal]);
    return true;
  };
  const host = Object.assign(events, { pid: 4242, kill });
  return { host: host as unknown as SignalledProcess & EventEmitter, killed };
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
    const { host, killed } = fakeProcess();
    const turns = new RunningTurns();
    const stopped = runningTurn(turns);
    stopTurnsBeforeTheDrainEnds(turns, 5_000, host);
    host.on('SIGTERM', () => {}); // Mastra's shutdown, installed once the server has started

    host.emit('SIGTERM', 'SIGTERM');
    vi.advanceTimersByTime(3_999);
    expect(stopped).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(stopped.map((reason) => reason.code)).toEqual(['MODEL_ERROR']);
    expect(killed).toEqual([]);
  });

  it('a signal before Mastra has its shutdown in place stops the process as Node would, instead of being swallowed', () => {
    const { host, killed } = fakeProcess();
    const turns = new RunningTurns();
    stopTurnsBeforeTheDrainEnds(turns, 5_000, host);

    host.emit('SIGINT', 'SIGINT');
    expect(killed).toEqual([[4242, 'SIGINT']]);
    // Its own listener is gone by then, so the signal sent again meets Node's default: the process ends.
    expect(host.listenerCount('SIGINT')).toBe(0);
  });
});
