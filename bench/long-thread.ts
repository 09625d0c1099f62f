/**
 * Per-turn cost of a long thread: the same turn on a thread with 10 stored
 * messages and on one with 10 000, interleaved in one run against the real
 * service and the scripted model, so both see the same machine state. The
 * memory window bounds what a turn loads, so the ratio should stay near 1.
 *
 *   npm run bench
 */
import { randomUUID } from 'node:crypto';
import { GENERATE, startCompanion, userSays } from '../tests/fixtures/companion-harness.ts';
import { createStorage } from '../src/mastra/storage.ts';
import { seedThread } from '../tests/fixtures/seed-thread.ts';
import { tempDatabaseUrl } from '../tests/fixtures/service.ts';

const TURNS = 30;
const WARM_UP = 3;

const databaseUrl = tempDatabaseUrl();
const short = { threadId: randomUUID(), resourceId: 'bench' };
const long = { threadId: randomUUID(), resourceId: 'bench' };
const storage = createStorage(databaseUrl)!;
await seedThread(storage, short, 10);
await seedThread(storage, long, 10_000);
await storage.close();

const h = await startCompanion({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' });
const timings = { short: [] as number[], long: [] as number[] };
try {
  for (let turn = 0; turn < WARM_UP + TURNS; turn++) {
    for (const [name, ids] of [['short', short], ['long', long]] as const) {
      h.model.script({ text: 'ok' });
      const started = performance.now();
      const response = await h.post(GENERATE, { ...userSays(`turn ${turn}`), ...ids });
      if (response.status !== 200) throw new Error(`turn failed: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
      if (turn >= WARM_UP) timings[name].push(performance.now() - started);
    }
  }
} finally {
  await h.close();
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const shortMs = median(timings.short);
const longMs = median(timings.long);
console.log(`median per-turn latency over ${TURNS} turns each (interleaved):`);
console.log(`  thread with     10 stored messages: ${shortMs.toFixed(1)} ms`);
console.log(`  thread with 10 000 stored messages: ${longMs.toFixed(1)} ms`);
console.log(`  ratio long/short: ${(longMs / shortMs).toFixed(2)}`);
