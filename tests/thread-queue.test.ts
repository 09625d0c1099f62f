import type { Client } from '@libsql/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { GENERATE, STREAM, conversationOf, startApp, userSays, withApp, type AppHarness } from './fixtures/app-harness.ts';
import { deferred } from './fixtures/openai-stand-in.ts';
import { readFrames } from './fixtures/sse.ts';
import { storedMessages } from './fixtures/stored-messages.ts';
import { STOPPED_TURN_GRACE_MS } from '../src/threads/turn.ts';

/**
 * Whose queue a turn waits in: the owner's thread (README "Turns and limits"). One turn may wait behind a
 * running one, so a single stranger's turn in the owner's queue would be enough to refuse the owner's next turn.
 */
const NATIVE = { 'x-mastra-client-type': 'client-js' };
let h: AppHarness;
beforeAll(async () => {
  h = await startApp({ MAX_QUEUED_TURNS: '1' });
});
afterAll(() => h.close());
beforeEach(() => h.reset());

/** Holds the model's first reply until `release()`; the turn holding it is then mid-model. */
async function holdFirstReply(start: () => Promise<Response>, { model } = h) {
  const gate = deferred();
  model.beforeReply = () => (model.requests.length === 1 ? gate.promise : undefined);
  const response = start();
  await vi.waitFor(() => expect(model.requests).toHaveLength(1));
  return { response, release: () => gate.resolve() };
}

describe('the per-thread queue belongs to the thread’s owner', () => {
  it("answers a stranger naming the owner's busy thread with 404 at once, and the owner's next turn still queues", async () => {
    const owner = { threadId: 'alice-diary', resourceId: 'alice' };
    h.model.script({ text: 'First reply.' }, { text: 'Second reply.' });
    const running = await holdFirstReply(() => h.post(GENERATE, { ...userSays('First'), ...owner }));

    // Were they queued behind the owner's turn, these would wait for as long as it is held (forever here).
    for (const path of [GENERATE, STREAM, GENERATE]) {
      const response = await h.post(path, { ...userSays('Let me in'), threadId: owner.threadId, resourceId: 'mallory' });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: 'Thread alice-diary was not found for this resource.', code: 'NOT_FOUND', details: { threadId: 'alice-diary' } });
    }
    const native = await h.post(GENERATE, { messages: 'Let me in', memory: { thread: owner.threadId, resource: 'mallory' } }, NATIVE);
    expect(native.status).toBe(404);

    const next = h.post(GENERATE, { ...userSays('Second'), ...owner });
    running.release();
    expect((await (await running.response).json()).text).toBe('First reply.');
    const second = await next;
    expect(second.status).toBe(200);
    expect((await second.json()).text).toBe('Second reply.');
    expect(h.model.requests).toHaveLength(2);
    expect(await storedMessages(await h.store(), owner.threadId)).toEqual([
      ['user', 'First'],
      ['assistant', 'First reply.'],
      ['user', 'Second'],
      ['assistant', 'Second reply.'],
    ]);
  });

  it('gives a new thread id to the owner who creates it first; another owner racing to create it gets 404 and writes nothing', () =>
    raceToCreateThread(h));

  it('does so with MAX_QUEUED_TURNS=0 too: the racing owner is not told the thread is answering a turn (429)', () =>
    withApp({ MAX_QUEUED_TURNS: '0' }, raceToCreateThread));
});

/** Alice and Mallory both start a turn on the new thread id `contested`: it is Alice's, who came first. */
async function raceToCreateThread(h: AppHarness) {
  // Alice's turn is held between finding no thread and creating it, until Mallory's turn creates it too
  // or has had ample time to: the moment a racing owner could slip in (the store's thread write is an upsert).
  const memory = await h.memoryStore();
  const saveThread = memory.saveThread.bind(memory);
  const aliceCreating = deferred();
  const malloryCreating = deferred();
  memory.saveThread = async (args) => {
    if (args.thread.resourceId === 'mallory') malloryCreating.resolve();
    else {
      aliceCreating.resolve();
      await Promise.race([malloryCreating.promise, new Promise((resolve) => setTimeout(resolve, 500))]);
    }
    return saveThread(args);
  };
  onTestFinished(() => {
    memory.saveThread = saveThread;
  });
  h.model.script({ text: 'Mine now.' });
  const first = h.post(GENERATE, { ...userSays('Hello'), threadId: 'contested', resourceId: 'alice' });
  await aliceCreating.promise;
  const second = h.post(GENERATE, { ...userSays('No, mine'), threadId: 'contested', resourceId: 'mallory' });

  expect((await first).status).toBe(200);
  expect((await second).status).toBe(404);
  expect(h.model.requests).toHaveLength(1);
  expect((await h.get('/threads/contested?resourceId=alice')).status).toBe(200);
  expect(await storedMessages(await h.store(), 'contested')).toEqual([
    ['user', 'Hello'],
    ['assistant', 'Mine now.'],
  ]);
}

describe('a deletion and a stopped turn still writing', () => {
  it.each([
    ['its reply', 0],
    // Streamed past the draft interval (1 s): the draft's write is the slow one, and the reply's save comes after it.
    ['its draft', 1_500],
  ])('waits past the stopped turn\'s grace for %s, and drops what it writes later: the deleted thread does not come back', async (_what, streamForMs) => {
    const ids = { threadId: `slow-store-${streamForMs}`, resourceId: 'ada' };
    h.model.script({ text: 'First reply.' }, { text: ['PARTIAL', ' reply'], hang: true });
    expect((await h.post(GENERATE, { ...userSays('First'), ...ids })).status).toBe(200);
    // The database takes longer than the grace to write the stopped turn's reply.
    const { client: database } = (await h.store()) as unknown as { client: Client };
    const batch = database.batch.bind(database);
    const slowWrite = deferred();
    database.batch = async (statements, mode) => {
      const writesAReply = statements.some((statement) => typeof statement === 'object' && 'args' in statement && (statement.args as unknown[])[3] === 'assistant');
      if (writesAReply) await slowWrite.promise;
      return batch(statements, mode);
    };
    onTestFinished(() => void (database.batch = batch));

    const client = new AbortController();
    const streaming = await h.request(STREAM, { method: 'POST', signal: client.signal, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...userSays('Second'), ...ids }) });
    const reader = streaming.body!.getReader();
    let streamed = '';
    while (!streamed.includes('PARTIAL')) streamed += new TextDecoder().decode((await reader.read()).value);
    await new Promise((resolve) => setTimeout(resolve, streamForMs));
    client.abort();
    await reader.cancel().catch(() => {});

    let answered = false;
    const deletion = h.send('DELETE', `/threads/${ids.threadId}?resourceId=ada`).finally(() => (answered = true));
    await new Promise((resolve) => setTimeout(resolve, STOPPED_TURN_GRACE_MS + 500));
    expect(answered).toBe(false);
    slowWrite.resolve();
    expect((await deletion).status).toBe(200);
    // Whatever the stopped turn writes after its slow write has had its chance to land.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await storedMessages(await h.store(), ids.threadId)).toEqual([]);
    expect((await h.get(`/threads/${ids.threadId}?resourceId=ada`)).status).toBe(404);
  }, 20_000);
});

describe('native and SPEC turns on one thread take the same queue', () => {
  type Send = (threadId: string, text: string) => Promise<Response>;
  const native = (path: string): Send => (threadId, text) => h.post(path, { messages: text, memory: { thread: threadId, resource: 'ada' } }, NATIVE);
  const spec = (path: string): Send => (threadId, text) => h.post(path, { ...userSays(text), threadId, resourceId: 'ada' });

  it.each([
    ['a native /stream, then a SPEC /generate', 'mixed-1', native(STREAM), spec(GENERATE)],
    ['a SPEC /stream, then a native /generate', 'mixed-2', spec(STREAM), native(GENERATE)],
  ])('%s: stored as user, assistant, user, assistant', async (_name, threadId, first, second) => {
    h.model.script({ text: ['First ', 'reply.'] }, { text: 'Second reply.' });
    const running = await holdFirstReply(() => first(threadId, 'First'));
    const next = second(threadId, 'Second');
    running.release();
    const firstResponse = await running.response;
    expect(firstResponse.status).toBe(200);
    await readFrames(firstResponse);
    expect((await next).status).toBe(200);

    // The second turn ran once the first was stored: its model call saw the whole first turn.
    expect(conversationOf(h.model.requests[1])).toEqual([
      { role: 'user', content: 'First' },
      { role: 'assistant', content: 'First reply.' },
      { role: 'user', content: 'Second' },
    ]);
    expect(await storedMessages(await h.store(), threadId)).toEqual([
      ['user', 'First'],
      ['assistant', 'First reply.'],
      ['user', 'Second'],
      ['assistant', 'Second reply.'],
    ]);
  });
});

describe('MAX_QUEUED_TURNS=0: no queue', () => {
  it('refuses a turn on a thread that is answering one at once, on both wire formats, and takes the next once the reply is in', async () => {
    await withApp({ MAX_QUEUED_TURNS: '0' }, async (solo) => {
      const owner = { threadId: 'alice-solo', resourceId: 'alice' };
      solo.model.script({ text: 'First reply.' }, { text: 'Second reply.' });
      const running = await holdFirstReply(() => solo.post(GENERATE, { ...userSays('First'), ...owner }), solo);

      const attempts: Array<[string, unknown, Record<string, string>?]> = [
        [GENERATE, { ...userSays('Me too'), ...owner }],
        [STREAM, { ...userSays('Me too'), ...owner }],
        [GENERATE, { messages: 'Me too', memory: { thread: owner.threadId, resource: owner.resourceId } }, NATIVE],
      ];
      for (const [path, body, headers] of attempts) {
        const refused = await solo.post(path, body, headers);
        expect(refused.status, path).toBe(429);
        expect(refused.headers.get('retry-after')).toBeNull();
        expect(await refused.json()).toEqual({
          error: 'Thread alice-solo is answering another turn; send the next message after a reply.',
          code: 'RATE_LIMITED',
          details: { threadId: 'alice-solo', maxQueuedTurns: 0 },
        });
      }
      expect(solo.model.requests).toHaveLength(1);

      running.release();
      expect((await (await running.response).json()).text).toBe('First reply.');
      const next = await solo.post(GENERATE, { ...userSays('Second'), ...owner });
      expect((await next.json()).text).toBe('Second reply.');
      expect(await storedMessages(await solo.store(), owner.threadId)).toEqual([
        ['user', 'First'],
        ['assistant', 'First reply.'],
        ['user', 'Second'],
        ['assistant', 'Second reply.'],
      ]);
    });
  });
});
