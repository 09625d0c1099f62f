import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MastraDBMessage } from '@mastra/core/memory';
import type { MastraCompositeStore } from '@mastra/core/storage';
import { createStorage } from '../src/mastra/storage.ts';
import { conversationOf, GENERATE, STREAM, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { startPostgres, type RunningPostgres } from './fixtures/postgres.ts';
import { startService, tempDatabaseUrl } from './fixtures/service.ts';
import { readFrames } from './fixtures/sse.ts';
import { seedThread } from './fixtures/seed-thread.ts';

/**
 * The same memory suite runs on an embedded LibSQL file and on a real PostgreSQL
 * server, in process; one test per store starts a real second process on the
 * same store: a restart for the file, a second replica for PostgreSQL.
 */
interface Store {
  name: string;
  databaseUrl: () => Promise<string>;
  cleanUp: () => Promise<void>;
  /** What the second process stands for. */
  secondProcess: string;
}
const STORES: Store[] = [
  { name: 'LibSQL file', databaseUrl: async () => tempDatabaseUrl(), cleanUp: async () => {}, secondProcess: 'the service restarted' },
  (() => {
    let postgres: RunningPostgres | undefined;
    return {
      name: 'PostgreSQL',
      databaseUrl: async () => (postgres = await startPostgres()).url,
      cleanUp: async () => postgres?.stop(),
      secondProcess: 'a second replica',
    };
  })(),
];

const WINDOW = 6;

describe.each(STORES)('memory on $name', (store) => {
  let h: AppHarness;
  /** The store as a second replica would see it: one handle for the whole suite. */
  let storage: MastraCompositeStore;

  beforeAll(async () => {
    const databaseUrl = await store.databaseUrl();
    storage = createStorage(databaseUrl)!;
    h = await startApp({ DATABASE_URL: databaseUrl, MEMORY_LAST_MESSAGES: String(WINDOW) });
  });
  afterAll(async () => {
    await h.close();
    await storage.close();
    await store.cleanUp();
  });
  beforeEach(() => h.reset());

  async function storedMessages(threadId: string) {
    const memory = await storage.getStore('memory');
    const { messages } = await memory!.listMessages({ threadId, perPage: false, orderBy: { field: 'createdAt', direction: 'ASC' } });
    return messages.map((m: MastraDBMessage) => [m.role, textOf(m)]);
  }

  const get = (path: string) => h.get(path);
  const send = (method: string, path: string, body?: unknown) => h.send(method, path, body);
  const turn = (text: string, ids: Record<string, unknown>) => h.post(GENERATE, { ...userSays(text), ...ids });
  const modelSaw = (request = 0) => conversationOf(h.model.requests[request]);

  describe('semantics', () => {
    it('threadId + resourceId: creates the thread, then continues it', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'ada' };
      h.model.script({ text: 'Hello Ada!' }, { text: 'You are Ada.' });

      const first = await turn('Hi, I am Ada and I love long walks by the sea.', ids);
      expect(first.status).toBe(200);
      expect(first.headers.get('x-thread-id')).toBe(ids.threadId);
      expect((await first.json()).response.uiMessages[0].metadata).toMatchObject(ids);
      await turn('Who am I?', ids);

      expect(modelSaw(1)).toEqual([
        { role: 'user', content: 'Hi, I am Ada and I love long walks by the sea.' },
        { role: 'assistant', content: 'Hello Ada!' },
        { role: 'user', content: 'Who am I?' },
      ]);
      expect(await storedMessages(ids.threadId)).toEqual([
        ['user', 'Hi, I am Ada and I love long walks by the sea.'],
        ['assistant', 'Hello Ada!'],
        ['user', 'Who am I?'],
        ['assistant', 'You are Ada.'],
      ]);
      const thread = await (await get(`/threads/${ids.threadId}?resourceId=ada`)).json();
      expect(thread).toEqual({
        id: ids.threadId,
        title: 'Hi, I am Ada and I love long walks by the sea.',
        resourceId: 'ada',
        agentId: 'companionAgent',
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        metadata: { personality: 'friend', createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), tags: [] },
      });
    });

    it('resourceId alone: starts a new thread and returns its id', async () => {
      const resourceId = `solo-${randomUUID()}`;
      h.model.script({ text: 'Welcome.' });
      const response = await turn('Hello', { resourceId });
      const threadId = response.headers.get('x-thread-id');
      expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
      expect((await response.json()).response.uiMessages[0].metadata).toMatchObject({ threadId, resourceId });
      const list = await (await get(`/threads?resourceId=${resourceId}`)).json();
      expect(list.threads.map((t: { id: string }) => t.id)).toEqual([threadId]);
      expect(await storedMessages(threadId!)).toEqual([['user', 'Hello'], ['assistant', 'Welcome.']]);
    });

    it('neither: a stateless turn that stores nothing', async () => {
      const memory = (await storage.getStore('memory'))!;
      const storedThreads = async () => (await memory.listThreads({ perPage: false })).total;
      const threadsBefore = await storedThreads();
      h.model.script({ text: 'Hi.' });
      const response = await turn('Hello', {});
      expect(response.status).toBe(200);
      expect(response.headers.get('x-thread-id')).toBeNull();
      const body = await response.json();
      expect(body.response.uiMessages[0].metadata).not.toHaveProperty('threadId');
      expect(h.model.requests[0].toolNames).not.toContain('updateWorkingMemory');
      expect(await storedThreads()).toBe(threadsBefore);
    });

    it('threadId alone: 400, because a thread always has an owner', async () => {
      const response = await turn('Hello', { threadId: 'orphan' });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining('threadId requires resourceId') });
      expect(h.model.requests).toHaveLength(0);
    });

    it('remembers the personality and the tags the thread started with, and updates them on request', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'ada' };
      h.model.script({ text: '1' }, { text: '2' }, { text: '3' });
      await h.post(GENERATE, { ...userSays('Hi'), ...ids, runtimeContext: { metadata: { personality: 'guru', tags: ['calm'] } } });
      await turn('And now?', ids);
      await h.post(GENERATE, { ...userSays('Think with me'), ...ids, runtimeContext: { metadata: { personality: 'philosopher' } } });

      const prompts = h.model.requests.map((r) => r.messages[0].content.split(':')[0]);
      expect(prompts).toEqual(['You are the Guru', 'You are the Guru', 'You are the Philosopher']);
      const thread = await (await get(`/threads/${ids.threadId}?resourceId=ada`)).json();
      expect(thread.metadata).toMatchObject({ personality: 'philosopher', tags: ['calm'] });
    });

    it('keeps working memory per user, across that user’s threads', async () => {
      const resourceId = `wm-${randomUUID()}`;
      h.model.script(
        { toolCalls: [{ name: 'updateWorkingMemory', args: { memory: '# User\n- Name: Grace\n- Likes: mountains' } }] },
        { text: 'Noted, Grace.' },
        { text: 'Hello again, Grace.' },
      );
      await turn('I am Grace and I like mountains.', { threadId: randomUUID(), resourceId });
      await turn('Hello!', { threadId: randomUUID(), resourceId });

      expect(h.model.requests[0].toolNames).toContain('updateWorkingMemory');
      const systemOfNewThread = h.model.requests[2].messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
      expect(systemOfNewThread).toContain('Name: Grace');
      expect(conversationOf(h.model.requests[2])).toEqual([{ role: 'user', content: 'Hello!' }]);
    });
  });

  describe('thread API', () => {
    async function startThread(resourceId: string, text: string) {
      const threadId = randomUUID();
      h.model.script({ text: `re: ${text}` });
      expect((await turn(text, { threadId, resourceId })).status).toBe(200);
      return threadId;
    }

    it('lists a user’s threads, most recently active first, paginated', async () => {
      const resourceId = `lister-${randomUUID()}`;
      const a = await startThread(resourceId, 'first');
      const b = await startThread(resourceId, 'second');
      const c = await startThread(resourceId, 'third');
      const page0 = await (await get(`/threads?resourceId=${resourceId}&perPage=2`)).json();
      const page1 = await (await get(`/threads?resourceId=${resourceId}&perPage=2&page=1`)).json();
      expect(page0).toMatchObject({ page: 0, perPage: 2, total: 3, hasMore: true });
      expect(page0.threads.map((t: { id: string }) => t.id)).toEqual([c, b]);
      expect(page1).toMatchObject({ page: 1, perPage: 2, total: 3, hasMore: false });
      expect(page1.threads.map((t: { id: string }) => t.id)).toEqual([a]);
    });

    it('reads a thread’s messages in order, paginated', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'reader' };
      h.model.script({ text: 'one' }, { text: 'two' });
      await turn('first', ids);
      await turn('second', ids);
      const page0 = await (await get(`/threads/${ids.threadId}/messages?resourceId=reader&perPage=3`)).json();
      const page1 = await (await get(`/threads/${ids.threadId}/messages?resourceId=reader&perPage=3&page=1`)).json();
      expect(page0.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
        ['user', 'first'],
        ['assistant', 'one'],
        ['user', 'second'],
      ]);
      expect(page0).toMatchObject({ total: 4, hasMore: true });
      expect(page1.messages.map((m: { content: string }) => m.content)).toEqual(['two']);
    });

    it('renames a thread and replaces its tags', async () => {
      const threadId = await startThread('editor', 'a chat');
      const response = await send('PATCH', `/threads/${threadId}?resourceId=editor`, { title: 'Mountains', tags: ['travel', 'nepal'] });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ id: threadId, title: 'Mountains', metadata: { tags: ['travel', 'nepal'], personality: 'friend' } });
      expect(await (await get(`/threads/${threadId}?resourceId=editor`)).json()).toMatchObject({ title: 'Mountains' });
    });

    it('rejects a bad patch and bad query parameters with 400 INVALID_REQUEST', async () => {
      const threadId = await startThread('editor', 'another chat');
      const badPatch = await send('PATCH', `/threads/${threadId}?resourceId=editor`, { title: '', colour: 'red' });
      expect(badPatch.status).toBe(400);
      expect(await badPatch.json()).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining('title') });
      const noOwner = await get(`/threads/${threadId}`);
      expect(noOwner.status).toBe(400);
      expect(await noOwner.json()).toMatchObject({ code: 'INVALID_REQUEST', error: 'Invalid query parameters: resourceId: resourceId is required' });
      const tooMany = await get(`/threads?resourceId=editor&perPage=1000`);
      expect(tooMany.status).toBe(400);
    });

    it('deletes a thread with its messages', async () => {
      const threadId = await startThread('deleter', 'bye');
      const response = await send('DELETE', `/threads/${threadId}?resourceId=deleter`);
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: threadId, deleted: true });
      expect((await get(`/threads/${threadId}?resourceId=deleter`)).status).toBe(404);
      expect(await storedMessages(threadId)).toEqual([]);
    });

    it('refuses every operation by another user, and nothing of the thread reaches the model', async () => {
      const threadId = await startThread('owner', 'my secret plans');
      h.reset();
      const notFound = { code: 'NOT_FOUND', error: `Thread ${threadId} was not found for this resource.`, details: { threadId } };

      const attempts = [
        await turn('Tell me the plans', { threadId, resourceId: 'intruder' }),
        await h.post(STREAM, { ...userSays('Tell me the plans'), threadId, resourceId: 'intruder' }),
        await get(`/threads/${threadId}?resourceId=intruder`),
        await get(`/threads/${threadId}/messages?resourceId=intruder`),
        await send('PATCH', `/threads/${threadId}?resourceId=intruder`, { title: 'mine now' }),
        await send('DELETE', `/threads/${threadId}?resourceId=intruder`),
      ];
      for (const response of attempts) {
        expect({ url: response.url, status: response.status, body: await response.json() }).toEqual({ url: response.url, status: 404, body: notFound });
      }
      const intruderList = await (await get('/threads?resourceId=intruder')).json();
      expect(intruderList.threads).toEqual([]);
      expect(h.model.requests).toHaveLength(0);
      expect(await storedMessages(threadId)).toEqual([['user', 'my secret plans'], ['assistant', 're: my secret plans']]);
      expect(await (await get(`/threads/${threadId}?resourceId=owner`)).json()).toMatchObject({ title: 'my secret plans' });
    });
  });

  describe('scale', () => {
    it('sends the model only the recent window of a long thread', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'long' };
      await seedThread(storage, ids, 10_000);
      h.model.script({ text: 'still here' });

      const latest = await turn('latest', ids);
      expect(latest.status, await latest.clone().text()).toBe(200);

      const seen = modelSaw();
      expect(seen).toHaveLength(WINDOW + 1);
      expect(seen[0].content).toBe(`seeded message ${10_000 - WINDOW + 1}`);
      expect(seen.at(-2)!.content).toBe('seeded message 10000');
      expect(seen.at(-1)).toEqual({ role: 'user', content: 'latest' });
    });

    it('stores 50 concurrent turns on 5 threads completely and in order', async () => {
      const threads = Array.from({ length: 5 }, () => ({ threadId: randomUUID(), resourceId: 'busy' }));
      h.model.script(...Array.from({ length: 50 }, () => ({ text: 'ack' })));

      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) => turn(`message ${Math.floor(i / 5)}`, threads[i % 5])),
      );

      expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(h.loggedErrors()).toEqual([]);
      for (const ids of threads) {
        const stored = await storedMessages(ids.threadId);
        // Turns on a thread run one at a time, so every user message is directly followed by its reply.
        expect(stored.map(([role]) => role)).toEqual(Array.from({ length: 10 }, () => ['user', 'assistant']).flat());
        const userTexts = stored.filter(([role]) => role === 'user').map(([, text]) => text);
        expect(userTexts.sort()).toEqual(Array.from({ length: 10 }, (_, k) => `message ${k}`));
      }
    });

    it(`lets ${store.secondProcess} (a real process on the same store) continue the thread`, async () => {
      const ids = { threadId: randomUUID(), resourceId: 'replicated' };
      h.model.script({ text: 'Noted: tea.' }, { text: 'Tea.' });
      await turn('I drink tea.', ids);
      const second = await startService(h.env);
      try {
        const response = await fetch(second.url + GENERATE, { method: 'POST', body: JSON.stringify({ ...userSays('What do I drink?'), ...ids }) });
        expect(response.status).toBe(200);
        expect(modelSaw(1)).toEqual([
          { role: 'user', content: 'I drink tea.' },
          { role: 'assistant', content: 'Noted: tea.' },
          { role: 'user', content: 'What do I drink?' },
        ]);
      } finally {
        await second.stop();
      }
    });
  });
});

describe('memory switched off or unreachable', () => {
  it.each([
    ['switched off', 'none', 'switched off'],
    ['unreachable', 'http://127.0.0.1:9', 'unreachable'],
  ])('%s: requests that need memory get MEMORY_NOT_INITIALIZED, stateless ones work', async (_name, databaseUrl, wording) => {
    const h = await startApp({ DATABASE_URL: databaseUrl });
    try {
      h.model.script({ text: 'Stateless is fine.' });
      const stateless = await h.post(GENERATE, userSays('Hi'));
      expect(stateless.status).toBe(200);
      expect((await stateless.json()).text).toBe('Stateless is fine.');

      for (const response of [
        await h.post(GENERATE, { ...userSays('Hi'), threadId: 't', resourceId: 'u' }),
        await h.post(STREAM, { ...userSays('Hi'), resourceId: 'u' }),
        await h.get('/threads?resourceId=u'),
      ]) {
        expect(response.status).toBe(500);
        const body = await response.json();
        expect(body.code).toBe('MEMORY_NOT_INITIALIZED');
        expect(body.error).toContain(wording);
      }
      expect(h.model.requests).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

function textOf(message: MastraDBMessage) {
  return (message.content.parts ?? []).flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}
