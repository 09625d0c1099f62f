import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { GENERATE, STREAM, startCompanion, userSays, type CompanionHarness } from './fixtures/companion-harness.ts';
import { conversationOf } from './fixtures/spec-requests.ts';
import { deferred } from './fixtures/openai-stand-in.ts';
import { startPostgres, type RunningPostgres } from './fixtures/postgres.ts';
import { startService, type RunningService } from './fixtures/service.ts';
import { readUntilEvent, sseFrames } from './fixtures/sse.ts';

// Two replicas of the service on one PostgreSQL store, sharing one model stand-in.
let postgres: RunningPostgres;
let h: CompanionHarness;
let replica: RunningService;
beforeAll(async () => {
  postgres = await startPostgres();
  h = await startCompanion({ DATABASE_URL: postgres.url });
  const { PORT: _port, ...env } = h.service.env;
  replica = await startService(env);
});
afterAll(async () => {
  await replica.stop();
  await h.close();
  await postgres.stop();
});
beforeEach(() => h.reset());

const onReplica = (body: unknown) =>
  fetch(replica.url + GENERATE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** A streamed turn on the first replica, held by the model after its first chunk until `gate` resolves. */
async function holdTurnOnFirstReplica(ids: { threadId: string; resourceId: string }) {
  const gate = deferred();
  h.model.script({ text: ['Tea is', ' lovely.'] }, { text: 'You asked about tea.' });
  h.model.beforeChunk = (index) => (index === 1 ? gate.promise : undefined);
  const frames = sseFrames(await h.post(STREAM, { ...userSays('Tell me about tea.'), ...ids }));
  await readUntilEvent(frames, 'text');
  return { gate, frames };
}

/**
 * Resolves once the replica not holding the thread has asked PostgreSQL for a turn lock twice: it was
 * refused once and is waiting (with the lock broken, its turn would have reached the model before asking again).
 */
async function lockAskedForTwice() {
  const client = new pg.Client({ connectionString: postgres.url });
  await client.connect();
  try {
    const lastAsked = async () => {
      const { rows } = await client.query(
        `SELECT query_start FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'companion-agent:turn'
           AND pid NOT IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = hashtext('companion-agent:turn')::oid)`,
      );
      return rows[0]?.query_start as Date | undefined;
    };
    // Bounds for a busy machine: the request crosses a real socket into another process.
    const patience = { timeout: 10_000, interval: 20 };
    const first = await vi.waitFor(async () => (await lastAsked()) ?? Promise.reject(new Error('the second replica has not asked yet')), patience);
    await vi.waitFor(async () => expect((await lastAsked())?.getTime()).not.toBe(first.getTime()), patience);
  } finally {
    await client.end();
  }
}

it('keeps one thread’s turns in order across replicas: the second replica’s turn waits for the first’s', async () => {
  const ids = { threadId: randomUUID(), resourceId: 'replicas' };
  const { gate, frames } = await holdTurnOnFirstReplica(ids);

  const second = onReplica({ ...userSays('What did I ask?'), ...ids });
  await lockAskedForTwice();
  // The second replica was refused the thread and asked again: it has still not called the model.
  expect(h.model.requests).toHaveLength(1);

  gate.resolve();
  for await (const _ of frames);
  const response = await second;
  expect(response.status).toBe(200);
  expect(conversationOf(h.model.requests[1])).toEqual([
    { role: 'user', content: 'Tell me about tea.' },
    { role: 'assistant', content: 'Tea is lovely.' },
    { role: 'user', content: 'What did I ask?' },
  ]);
});

it('frees a thread when the replica running its turn crashes (kill -9)', async () => {
  const ids = { threadId: randomUUID(), resourceId: 'replicas' };
  await holdTurnOnFirstReplica(ids);
  const second = onReplica({ ...userSays('Anyone there?'), ...ids });

  await h.restart('SIGKILL');
  const response = await second;
  expect(response.status).toBe(200);
  expect((await response.json()).text).toBe('You asked about tea.');
  expect(conversationOf(h.model.requests[1]).at(-1)).toEqual({ role: 'user', content: 'Anyone there?' });
});

// The connection was opened during a turn, and its loss was logged with that turn's trace id, long after it ended.
it("logs the loss of a replica's lock connection without the trace id of the turn that opened it", async () => {
  h.model.script({ text: 'Noted.' });
  const turn = await onReplica({ ...userSays('Hello'), threadId: `lost-${randomUUID()}`, resourceId: 'u' });
  expect(turn.status).toBe(200);
  const admin = new pg.Client({ connectionString: postgres.url });
  await admin.connect();
  try {
    await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'companion-agent:turn'`);
  } finally {
    await admin.end();
  }
  const lost = await vi.waitFor(() => {
    const line = replica.output().split('\n').find((text) => text.includes('turn lock connection lost'));
    return line ? JSON.parse(line) : Promise.reject(new Error('no line yet'));
  });
  expect(lost).toMatchObject({ level: 40, msg: 'turn lock connection lost; the turns holding its locks were stopped' });
  expect(lost.traceId).toBeUndefined();
});
