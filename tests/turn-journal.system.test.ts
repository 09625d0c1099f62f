import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MastraCompositeStore } from '@mastra/core/storage';
import { createStorage } from '../src/mastra/storage.ts';
import { GENERATE, STREAM, startCompanion, userSays, type CompanionHarness } from './fixtures/companion-harness.ts';
import { conversationOf } from './fixtures/spec-requests.ts';
import { tempDatabaseUrl } from './fixtures/service.ts';
import { deferred } from './fixtures/openai-stand-in.ts';
import { eventsOf, readFrames, sseFrames } from './fixtures/sse.ts';
import { storedMessages as storedMessagesOf } from './fixtures/stored-messages.ts';

/** What the turn journal stores when a turn does not finish: the real service, so kill -9 is a real one. */
describe('a stored turn', () => {
  let h: CompanionHarness;
  let storage: MastraCompositeStore;

  beforeAll(async () => {
    const databaseUrl = tempDatabaseUrl();
    storage = createStorage(databaseUrl)!;
    // A short drain: a SIGTERM cuts a running reply before its first draft.
    h = await startCompanion({ DATABASE_URL: databaseUrl, SHUTDOWN_DRAIN_MS: '300' });
  });
  afterAll(async () => {
    await h.close();
    await storage.close();
  });
  beforeEach(() => h.reset());

  const storedMessages = (threadId: string) => storedMessagesOf(storage, threadId);

  /** Reads the thread's stored messages until they are what the test waits for (a draft is written within about 1 s). */
  async function storedEventually(threadId: string, expected: unknown[]) {
    for (let attempt = 0; attempt < 100; attempt++) {
      if (JSON.stringify(await storedMessages(threadId)) === JSON.stringify(expected)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(await storedMessages(threadId)).toEqual(expected);
  }

  const get = (path: string) => fetch(h.service.url + path);
  const turn = (text: string, ids: Record<string, unknown>) => h.post(GENERATE, { ...userSays(text), ...ids });
  const modelSaw = (request = 0) => conversationOf(h.model.requests[request]!);

  describe('what a turn that does not finish leaves behind', () => {
    const streamTurn = (text: string, ids: Record<string, unknown>) => h.post(STREAM, { ...userSays(text), ...ids });

    it('a model failing before any reply: the user message, and no assistant message', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'faults' };
      h.model.script({ error: { status: 500, message: 'upstream exploded' } }, { text: 'Back.' });
      expect((await turn('Hello?', ids)).status).toBe(500);
      expect(await storedMessages(ids.threadId)).toEqual([['user', 'Hello?']]);

      await turn('Hello again?', ids);
      expect(modelSaw(1)).toEqual([
        { role: 'user', content: 'Hello?' },
        { role: 'user', content: 'Hello again?' },
      ]);
    });

    it('a reply cut off mid-stream: what was streamed, marked interrupted, which the next turn sees', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'faults' };
      h.model.script({ text: ['Hel', 'lo', ' there'], cutAfter: 2 }, { text: 'Sorry, where was I?' });
      const events = eventsOf(await readFrames(await streamTurn('Hi', ids)));
      expect(events.at(-1).type).toBe('error');
      expect(await storedMessages(ids.threadId)).toEqual([['user', 'Hi'], ['assistant', 'Hello', 'interrupted']]);
      const page = await (await get(`/threads/${ids.threadId}/messages?resourceId=faults`)).json();
      expect(page.messages.map((m: Record<string, unknown>) => [m.content, m.interrupted])).toEqual([
        ['Hi', undefined],
        ['Hello', true],
      ]);

      await turn('Go on.', ids);
      expect(modelSaw(1)).toEqual([
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Go on.' },
      ]);
    });

    it('a reply in progress: stored as it streams, marked interrupted, then replaced by the finished reply', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'faults' };
      const draftSeen = deferred();
      h.model.script({ text: ['A long', ' answer.'] });
      h.model.beforeChunk = (index) => (index === 1 ? draftSeen.promise : undefined);
      const reply = streamTurn('Tell me', ids).then(readFrames);

      await storedEventually(ids.threadId, [['user', 'Tell me'], ['assistant', 'A long', 'interrupted']]);
      draftSeen.resolve();
      expect(eventsOf(await reply).at(-1).type).toBe('run-finish');
      expect(await storedMessages(ids.threadId)).toEqual([['user', 'Tell me'], ['assistant', 'A long answer.']]);
    });

    it('SIGTERM mid-reply, its drain ending before the first draft: the reply so far is stored before the process exits', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'faults' };
      h.model.script({ text: ['Once upon', ' a time'], hang: true });
      // The client keeps reading: the reply is cut by the shutdown, not by a client that left.
      const reader = (await streamTurn('Tell me a story.', ids)).body!.getReader();
      let streamed = '';
      while (!streamed.includes(' a time')) streamed += new TextDecoder().decode((await reader.read()).value);

      await h.restart('SIGTERM');
      expect(await storedMessages(ids.threadId)).toEqual([['user', 'Tell me a story.'], ['assistant', 'Once upon a time', 'interrupted']]);
    });

    it('kill -9 mid-reply: the user message and the reply so far survive the restart, marked interrupted', async () => {
      const ids = { threadId: randomUUID(), resourceId: 'faults' };
      h.model.script({ text: ['Once upon', ' a time'], hang: true });
      for await (const raw of sseFrames(await streamTurn('Tell me a story.', ids))) {
        if (eventsOf([raw])[0]?.text === ' a time') break;
      }
      await storedEventually(ids.threadId, [['user', 'Tell me a story.'], ['assistant', 'Once upon a time', 'interrupted']]);

      await h.restart('SIGKILL');
      expect(await storedMessages(ids.threadId)).toEqual([['user', 'Tell me a story.'], ['assistant', 'Once upon a time', 'interrupted']]);
      h.model.script({ text: 'As I was saying…' });
      expect((await turn('Go on.', ids)).status).toBe(200);
      expect(modelSaw(1)).toEqual([
        { role: 'user', content: 'Tell me a story.' },
        { role: 'assistant', content: 'Once upon a time' },
        { role: 'user', content: 'Go on.' },
      ]);
    });
  });

});

