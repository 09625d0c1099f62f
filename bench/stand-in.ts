/**
 * @module Starts the stand-ins (bench/stand-in-process.ts) and sets the model's pacing between
 * phases: instant for throughput, a small inter-token delay for stream timing, slow for the
 * many-streams phase. All three servers talk to the same stand-in process.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import type { BenchTurn } from '../tests/fixtures/openai-stand-in.ts';

export type { BenchTurn };

export interface StandIns {
  /** OpenAI-compatible base URL, e.g. http://127.0.0.1:PORT/v1 */
  baseURL: string;
  geocodingUrl: string;
  forecastUrl: string;
  pace(bench: BenchTurn): Promise<void>;
  close(): Promise<void>;
}

/** No latency at all: what the servers cost, not what the model costs. */
export const INSTANT: BenchTurn = { firstTokenMs: 0, interTokenMs: 0, chunks: 8 };

export async function startStandIns(): Promise<StandIns> {
  const child = fork(new URL('./stand-in-process.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [ready] = (await once(child, 'message')) as [{ baseURL: string; geocodingUrl: string; forecastUrl: string }];
  return {
    baseURL: ready.baseURL,
    geocodingUrl: ready.geocodingUrl,
    forecastUrl: ready.forecastUrl,
    async pace(bench) {
      const paced = once(child, 'message');
      child.send({ type: 'pace', bench });
      await paced;
    },
    async close() {
      const exited = once(child, 'exit');
      child.disconnect();
      await exited;
    },
  };
}
