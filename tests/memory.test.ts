import { createClient } from '@libsql/client';
import { MastraError } from '@mastra/core/error';
import type { MastraDBMessage } from '@mastra/core/memory';
import { TABLE_MESSAGES } from '@mastra/core/storage';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GENERATE, STREAM, userSays, withApp, type AppHarness } from './fixtures/app-harness.ts';
import { eventsOf, readFrames, readUntilFrame, sseFrames } from './fixtures/sse.ts';
import { NATIVE } from './fixtures/spec-requests.ts';
import { storedMessages } from './fixtures/stored-messages.ts';
import { describeMemorySuite } from './fixtures/memory-suite.ts';
import { tempDatabaseUrl } from './fixtures/service.ts';
import { startSilentDatabase } from './fixtures/silent-database.ts';

describeMemorySuite({
  name: 'LibSQL file',
  databaseUrl: async () => tempDatabaseUrl(),
  cleanUp: async () => {},
  secondInstance: 'a second instance of the service',
});

describe('memory switched off or unreachable', () => {
  it.each([
    ['switched off', 'none', 'switched off'],
    ['unreachable', 'http://127.0.0.1:9', 'could not be reached'],
  ])('%s: requests that need memory get MEMORY_NOT_INITIALIZED, stateless ones work', async (_name, databaseUrl, wording) => {
    await withApp({ DATABASE_URL: databaseUrl }, async (h) => {
      h.model.script({ text: 'Stateless is fine.' });
      const stateless = await h.post(GENERATE, userSays('Hi'));
      expect(stateless.status).toBe(200);
      expect((await stateless.json()).text).toBe('Stateless is fine.');

      for (const response of [
        await h.post(GENERATE, { ...userSays('Hi'), threadId: 't', resourceId: 'u' }),
        await h.post(STREAM, { ...userSays('Hi'), resourceId: 'u' }),
        await h.get('/threads?resourceId=u'),
        await h.get('/working-memory?resourceId=u'),
        await h.send('DELETE', '/working-memory?resourceId=u'),
      ]) {
        expect(response.status).toBe(500);
        const body = await response.json();
        expect(body.code).toBe('MEMORY_NOT_INITIALIZED');
        expect(body.error).toContain(wording);
      }
      expect(h.model.requests).toHaveLength(1);
    });
  });
});

describe('a database that accepts connections but never answers', () => {
  let database: Awaited<ReturnType<typeof startSilentDatabase>>;
  beforeAll(async () => {
    database = await startSilentDatabase();
  });
  afterAll(() => database.close());

  it('requests that need memory get MEMORY_NOT_INITIALIZED within seconds, stateless ones work', async () => {
    await withApp({ DATABASE_URL: database.url, MODEL_TIMEOUT_MS: '5000' }, async (h) => {
      h.model.script({ text: 'Stateless is fine.' });
      expect((await h.post(GENERATE, userSays('Hi'))).status).toBe(200);

      const started = performance.now();
      const responses = await Promise.all([
        h.post(GENERATE, { ...userSays('Hi'), resourceId: 'u1' }),
        h.post(STREAM, { ...userSays('Hi'), threadId: 't1', resourceId: 'u1' }),
        h.get('/threads?resourceId=u1'),
      ]);
      // Before the turn's own bound (MODEL_TIMEOUT_MS): the store's bound answered, not the turn's.
      expect(performance.now() - started).toBeLessThan(5000);
      for (const response of responses) {
        expect(response.status).toBe(500);
        expect(await response.json()).toEqual({
          error: 'The conversation store failed or could not be reached; try again later. A turn without threadId and resourceId does not need it.',
          code: 'MEMORY_NOT_INITIALIZED',
          details: {},
        });
      }
      expect(h.model.requests).toHaveLength(1);
    });
  });

  it('a turn whose time runs out first answers its timeout, not the unreachable store', async () => {
    await withApp({ DATABASE_URL: database.url, MODEL_TIMEOUT_MS: '500' }, async (h) => {
      const response = await h.post(GENERATE, { ...userSays('Hi'), threadId: 't1', resourceId: 'u1' });
      expect(response.status).toBe(504);
      expect(await response.json()).toMatchObject({ code: 'MODEL_ERROR', details: { timeout: 'turn', timeoutMs: 500 } });
    });
  });
});

describe('a store slower than the turn', () => {
  it.each([
    ['SPEC /generate', GENERATE, {}],
    ['SPEC /stream', STREAM, {}],
    ['native /generate', GENERATE, NATIVE],
  ])('%s: opening the thread counts in MODEL_TIMEOUT_MS: 504 timeout "turn" when it runs out, and no model call', async (_name, path, headers) => {
    await withApp({ MODEL_TIMEOUT_MS: '500' }, async (h) => {
      const memory = await h.memoryStore();
      // A thread read that takes longer than the whole turn may.
      const getThreadById = memory.getThreadById.bind(memory);
      memory.getThreadById = async (args) => {
        await new Promise((resolve) => setTimeout(resolve, 1500));
        return getThreadById(args);
      };
      h.model.script({ text: 'Too late.' });
      const body = headers === NATIVE
        ? { messages: 'Hi', memory: { thread: 'slow-store', resource: 'ada' } }
        : { ...userSays('Hi'), threadId: 'slow-store', resourceId: 'ada' };

      const started = performance.now();
      const response = await h.post(path, body, headers);
      expect(performance.now() - started).toBeLessThan(1500);
      expect(response.status).toBe(504);
      expect(await response.json()).toEqual({
        error: 'The turn took longer than 500 ms; the run was stopped.',
        code: 'MODEL_ERROR',
        details: { timeout: 'turn', timeoutMs: 500 },
      });
      expect(h.model.requests).toHaveLength(0);
    });
  });
});

describe('a thread API request the store cannot serve', () => {
  it("logs one error line, 'request failed' with its code and status, not the framework's 'Error calling handler'", async () => {
    await withApp({ DATABASE_URL: 'none' }, async (h) => {
      const errorLog = vi.spyOn(h.mastra.getLogger(), 'error');
      const response = await h.get('/threads?resourceId=u1');
      expect(response.status).toBe(500);
      expect((await response.json()).code).toBe('MEMORY_NOT_INITIALIZED');
      expect(errorLog.mock.calls).toEqual([
        ['request failed', expect.objectContaining({ traceId: response.headers.get('x-trace-id'), code: 'MEMORY_NOT_INITIALIZED', status: 500 })],
      ]);
    });
  });
});

describe('the store failing during a turn', () => {
  const STORE_FAILED = { error: 'The conversation store failed during this turn, so the turn was not completed; try again.', code: 'MEMORY_NOT_INITIALIZED' };
  const storeFailure = () =>
    new MastraError({ id: 'LIBSQL_STORE_SAVE_MESSAGES_FAILED', domain: 'STORAGE', category: 'THIRD_PARTY' }, new Error('SQLITE_FULL: database or disk is full'));

  /** The database itself refuses every reply (beneath every wrapper of the store), as a full disk would. */
  async function refuseRepliesIn(h: AppHarness, databaseUrl: string) {
    await (await h.store()).init();
    const database = createClient({ url: databaseUrl });
    await database.execute(`CREATE TRIGGER full_disk BEFORE INSERT ON ${TABLE_MESSAGES} WHEN NEW.role = 'assistant' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`);
    database.close();
  }

  /** The store refuses every write that holds a reply, as a full disk or a lost database connection would. */
  async function failReplyWrites(h: AppHarness) {
    const memory = await h.memoryStore();
    const saveMessages = memory.saveMessages.bind(memory);
    memory.saveMessages = async (args) => {
      if (args.messages.some((message: MastraDBMessage) => message.role === 'assistant')) throw storeFailure();
      return saveMessages(args);
    };
  }

  it.each([GENERATE, STREAM])('%s: before the model call (reading the history), 500 MEMORY_NOT_INITIALIZED and no model call', async (path) => {
    await withApp({}, async (h) => {
      h.model.script({ text: 'Hello.' });
      const ids = { threadId: 'broken-store', resourceId: 'ada' };
      expect((await h.post(GENERATE, { ...userSays('Hi'), ...ids })).status).toBe(200);
      const memory = await h.memoryStore();
      memory.listMessages = async () => {
        throw storeFailure();
      };

      const response = await h.post(path, { ...userSays('Again'), ...ids });
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ ...STORE_FAILED, details: {} });
      expect(h.model.requests).toHaveLength(1);
    });
  });

  it('/generate: 500 MEMORY_NOT_INITIALIZED, not a reply the thread does not have', async () => {
    await withApp({}, async (h) => {
      await failReplyWrites(h);
      h.model.script({ text: 'A reply the store cannot keep.' });
      const response = await h.post(GENERATE, { ...userSays('Hi'), threadId: 'full-disk', resourceId: 'ada' });
      expect(response.status).toBe(500);
      // The whole body: nothing of the store's error or of the unstored reply leaks.
      expect(await response.json()).toEqual({ ...STORE_FAILED, details: {} });
      // What was stored before the model call stays.
      expect(await storedMessages(await h.store(), 'full-disk')).toEqual([['user', 'Hi']]);
    });
  });

  it('/generate, native (@mastra/client-js): 500 MEMORY_NOT_INITIALIZED, as a SPEC turn', async () => {
    await withApp({}, async (h) => {
      await failReplyWrites(h);
      h.model.script({ text: 'A reply the store cannot keep.' });
      const response = await h.post(GENERATE, { messages: 'Hi', memory: { thread: 'full-disk', resource: 'ada' } }, NATIVE);
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ ...STORE_FAILED, details: {} });
      expect(await storedMessages(await h.store(), 'full-disk')).toEqual([['user', 'Hi']]);
    });
  });

  it('/stream, native (@mastra/client-js): an error frame MEMORY_NOT_INITIALIZED instead of its finish, and a failure line', async () => {
    const databaseUrl = tempDatabaseUrl();
    await withApp({ DATABASE_URL: databaseUrl }, async (h) => {
      await refuseRepliesIn(h, databaseUrl);
      h.model.script({ text: ['A reply ', 'the store cannot keep.'] });
      const response = await h.post(STREAM, { messages: 'Hi', memory: { thread: 'full-disk', resource: 'ada' } }, NATIVE);
      expect(response.status).toBe(200);
      const frames = await readFrames(response);
      expect(frames.at(-1)).toBe('data: [DONE]\n\n');
      const chunks = eventsOf(frames.slice(0, -1));
      expect(chunks.map((chunk) => chunk.type)).toEqual(['start', 'step-start', 'text-start', 'text-delta', 'text-delta', 'text-end', 'step-finish', 'error']);
      expect(chunks.at(-1)).toEqual({ type: 'error', runId: chunks[0].runId, from: chunks[0].from, payload: { error: { message: STORE_FAILED.error, code: STORE_FAILED.code } } });
      expect(await storedMessages(await h.store(), 'full-disk')).toEqual([['user', 'Hi']]);
      expect(h.loggedErrors()).toContain('request failed');
    });
  });

  // The thread waits for a stopped native run to store its reply; a run whose save failed stores nothing more, and
  // its thread was held until the stopped turn's grace (5 s) ran out.
  it('/stream, native: a client that leaves while the store refuses its reply frees the thread at once', async () => {
    const databaseUrl = tempDatabaseUrl();
    await withApp({ DATABASE_URL: databaseUrl }, async (h) => {
      await refuseRepliesIn(h, databaseUrl);
      h.model.beforeChunk = () => new Promise((resolve) => setTimeout(resolve, 25));
      h.model.script({ text: Array.from({ length: 40 }, (_, i) => `w${i} `) }, { text: 'Next.' });
      const frames = sseFrames(await h.post(STREAM, { messages: 'Tell me', memory: { thread: 'full-disk', resource: 'ada' } }, NATIVE));
      let texts = 0;
      await readUntilFrame(frames, (frame) => frame.includes('"type":"text-delta"') && ++texts === 3, 'three text deltas');
      h.model.beforeChunk = undefined;
      const leftAt = Date.now();
      // The native client leaves.
      await frames.return(undefined);
      const next = await h.post(GENERATE, { messages: [{ role: 'user', content: 'Again?' }], threadId: 'full-disk', resourceId: 'ada' });
      expect(next.status).toBe(500);
      expect(Date.now() - leftAt).toBeLessThan(2_500);
    });
  });

  it('/stream, native: a model failure whose partial reply the store then refuses ends with the one error frame of the model failure', async () => {
    const databaseUrl = tempDatabaseUrl();
    await withApp({ DATABASE_URL: databaseUrl }, async (h) => {
      await refuseRepliesIn(h, databaseUrl);
      h.model.script({ text: ['Half ', 'a reply'], endAfter: 1 });
      const response = await h.post(STREAM, { messages: 'Hi', memory: { thread: 'full-disk', resource: 'ada' } }, NATIVE);
      const chunks = eventsOf((await readFrames(response)).slice(0, -1));
      expect(chunks.filter((chunk) => chunk.type === 'error').map((chunk) => chunk.payload.error.code)).toEqual(['MODEL_ERROR']);
      expect(chunks.at(-1).type).toBe('finish');
    });
  });

  it('/stream: one error event MEMORY_NOT_INITIALIZED instead of run-finish', async () => {
    await withApp({}, async (h) => {
      await failReplyWrites(h);
      h.model.script({ text: ['A reply ', 'the store cannot keep.'] });
      const response = await h.post(STREAM, { ...userSays('Hi'), threadId: 'full-disk', resourceId: 'ada' });
      expect(response.status).toBe(200);
      const events = eventsOf(await readFrames(response));
      expect(events.map((event) => event.type)).toEqual(['start', 'step-start', 'text', 'text', 'step-finish', 'error']);
      expect(events.at(-1)).toEqual({
        type: 'error',
        error: { message: STORE_FAILED.error, code: STORE_FAILED.code },
        runId: events[0].runId,
      });
      expect(await storedMessages(await h.store(), 'full-disk')).toEqual([['user', 'Hi']]);
      expect(h.loggedErrors()).toContain('request failed');
    });
  });
});
