/**
 * @module Per-turn cost of a long thread: the same turn on threads with 10, 1 000 and 10 000
 * stored messages, interleaved (turn by turn, server by server) so every size sees the same
 * machine state. The threads are written straight into the store before the servers start, as
 * a long history would have left them; the memory window bounds what a turn loads, so the
 * 10 000 / 10 ratio should stay near 1.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { LibSQLStore } from '@mastra/libsql';
import { seedThread } from '../tests/fixtures/seed-thread.ts';
import { median } from './load.ts';
import type { ServerUnderTest, ThreadIds } from './servers.ts';

export const THREAD_SIZES = [10, 1_000, 10_000] as const;
export type ThreadSize = (typeof THREAD_SIZES)[number];

const LONG_THREAD_RESOURCE = 'bench-long';

function longThreadIds(size: ThreadSize): ThreadIds {
  return { threadId: `long-${size}`, resourceId: LONG_THREAD_RESOURCE };
}

/** Seeds every size once, then copies the store file to each server's store (both LibSQL, one schema). */
export async function seedLongThreads(templateUrl: string, copies: string[]): Promise<void> {
  const storage = new LibSQLStore({ id: 'bench-seed', url: templateUrl });
  for (const size of THREAD_SIZES) await seedThread(storage, longThreadIds(size), size);
  await storage.close();
  const from = templateUrl.slice('file:'.length);
  for (const copy of copies) {
    for (const suffix of ['', '-wal', '-shm']) {
      if (existsSync(from + suffix)) copyFileSync(from + suffix, copy.slice('file:'.length) + suffix);
    }
  }
}

/** Median per-turn latency (ms) by server and thread size, over `turns` measured turns after `warmUp`. */
export async function measureThreadCost(servers: ServerUnderTest[], turns: number, warmUp: number) {
  const timings = new Map(servers.map((server) => [server.name, new Map(THREAD_SIZES.map((size) => [size, [] as number[]]))]));
  for (let turn = 0; turn < warmUp + turns; turn++) {
    for (const size of THREAD_SIZES) {
      for (const server of servers) {
        const started = performance.now();
        const response = await fetch(server.url + server.path.generate, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(server.body(`turn ${turn}`, longThreadIds(size))),
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`${server.name}: turn on the ${size}-message thread failed with ${response.status}`);
        if (turn >= warmUp) timings.get(server.name)!.get(size)!.push(performance.now() - started);
      }
    }
  }
  return new Map(
    [...timings].map(([name, bySize]) => [name, Object.fromEntries([...bySize].map(([size, ms]) => [size, median(ms)])) as Record<ThreadSize, number>]),
  );
}
