/**
 * A stored turn and its thread (src/threads/turn-thread.ts): the turn reads the thread from the store
 * once, and a deletion waits for the turn, so nothing the turn stores outlives the thread.
 */
import { MemoryLibSQL } from '@mastra/libsql';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { GENERATE, STREAM, conversationOf, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { deferred } from './fixtures/openai-stand-in.ts';
import { readAnswer } from './fixtures/sse.ts';
import { NATIVE } from './fixtures/spec-requests.ts';
import { storedMessages } from './fixtures/stored-messages.ts';

let h: AppHarness;
/** The store's own thread query, spied on before the app wraps it: every call is a query. */
let threadQueries: MockInstance;
beforeAll(async () => {
  threadQueries = vi.spyOn(MemoryLibSQL.prototype, 'getThreadById');
  h = await startApp();
});
afterAll(async () => {
  await h.close();
  threadQueries.mockRestore();
});
beforeEach(() => h.reset());

/** A whole turn, its answer read to the end. */
async function turn(app: AppHarness, path: string, body: unknown) {
  const response = await app.post(path, body);
  expect(response.status).toBe(200);
  return readAnswer(response);
}

describe('a stored turn reads its thread from the store once', () => {
  it.each([GENERATE, STREAM])('%s: twice for a new thread (found missing, then claimed), once for a thread it continues', async (path) => {
    const ids = { threadId: `once${path.endsWith('stream') ? '-stream' : ''}`, resourceId: 'ada' };
    h.model.script({ text: 'Hello Ada.' }, { text: 'Still here.' });

    threadQueries.mockClear();
    await turn(h, path, { ...userSays('Hi'), ...ids, runtimeContext: { metadata: { personality: 'guru' } } });
    expect(threadQueries).toHaveBeenCalledTimes(2);

    threadQueries.mockClear();
    await turn(h, path, { ...userSays('Again'), ...ids });
    expect(threadQueries).toHaveBeenCalledTimes(1);

    // The continued turn is the turn it was: the thread's stored voice, the whole history, both turns stored.
    expect(h.model.requests[1]!.messages[0]!.content).toMatch(/guru/i);
    expect(conversationOf(h.model.requests[1]!)).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'Again' },
    ]);
    expect(await storedMessages(await h.store(), ids.threadId)).toEqual([
      ['user', 'Hi'],
      ['assistant', 'Hello Ada.'],
      ['user', 'Again'],
      ['assistant', 'Still here.'],
    ]);
  });

  it('a native turn (@mastra/client-js) that continues its thread reads it once too', async () => {
    const memory = { thread: 'once-native', resource: 'ada' };
    h.model.script({ text: 'Hello Ada.' }, { text: 'Still here.' });
    expect((await h.post(GENERATE, { messages: 'Hi', memory }, NATIVE)).status).toBe(200);
    threadQueries.mockClear();
    expect((await h.post(GENERATE, { messages: 'Again', memory }, NATIVE)).status).toBe(200);
    expect(threadQueries).toHaveBeenCalledTimes(1);
  });
});

describe('deleting a thread while a turn runs on it', () => {
  it.each([GENERATE, STREAM])('%s: the deletion waits for the turn, then takes the thread and every message the turn stored', async (path) => {
    const threadId = `doomed${path.endsWith('stream') ? '-stream' : ''}`;
    const deleted = await deleteDuringTurn(h, path, threadId, () => h.send('DELETE', `/threads/${threadId}?resourceId=ada`));
    expect(await deleted.json()).toEqual({ id: threadId, deleted: true });
  });

  describe("with Studio's delete (development: Mastra's own memory route)", () => {
    let studio: AppHarness;
    beforeAll(async () => {
      studio = await startApp({ SERVER_MODE: 'development' });
    });
    afterAll(() => studio.close());
    beforeEach(() => studio.reset());

    it.each([GENERATE, STREAM])('%s: the same', async (path) => {
      const threadId = `studio-doomed${path.endsWith('stream') ? '-stream' : ''}`;
      const remove = async () => studio.app.request(`/api/memory/threads/${threadId}?agentId=companionAgent&resourceId=ada`, { method: 'DELETE' });
      const deleted = await deleteDuringTurn(studio, path, threadId, remove);
      expect(await deleted.json()).toEqual({ result: 'Thread deleted' });
    });

    it.each([GENERATE, STREAM])("%s: the same with the Responses API's conversation deletion", async (path) => {
      const threadId = `conversation-doomed${path.endsWith('stream') ? '-stream' : ''}`;
      const remove = async () => studio.app.request(`/api/v1/conversations/${threadId}`, { method: 'DELETE' });
      const deleted = await deleteDuringTurn(studio, path, threadId, remove);
      expect(await deleted.json()).toEqual({ id: threadId, object: 'conversation.deleted', deleted: true });
    });

    it("refuses a message deletion sent as a form (which Mastra reads too) with 415, and deletes nothing", async () => {
      const ids = { threadId: 'studio-form-deletion', resourceId: 'ada' };
      studio.model.script({ text: 'Kept.' });
      await turn(studio, GENERATE, { ...userSays('Keep me'), ...ids });
      const { messages } = await (await studio.memoryStore()).listMessages({ threadId: ids.threadId, perPage: false });
      const form = new FormData();
      form.append('messageIds', JSON.stringify(messages.map((message) => message.id)));
      const response = await studio.app.request('/api/memory/messages/delete?agentId=companionAgent', { method: 'POST', body: form });
      expect(response.status).toBe(415);
      expect(await storedMessages(await studio.store(), ids.threadId)).toEqual([
        ['user', 'Keep me'],
        ['assistant', 'Kept.'],
      ]);
    });

    it("Studio's message deletion waits for the turn too: a user message deleted while its turn runs stays deleted", async () => {
      const ids = { threadId: 'studio-message-deleted', resourceId: 'ada' };
      studio.model.script({ text: 'First reply.' }, { text: 'Second reply.' });
      await turn(studio, GENERATE, { ...userSays('First'), ...ids });
      await removeWhileTurnHeld(studio, GENERATE, ids, async () => {
        const { messages } = await (await studio.memoryStore()).listMessages({ threadId: ids.threadId, perPage: false });
        const second = messages.find((message) => message.role === 'user' && message.content.parts.some((part) => part.type === 'text' && part.text === 'Second'));
        return studio.app.request('/api/memory/messages/delete?agentId=companionAgent', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ messageIds: [second!.id] }),
        });
      });
      expect(await storedMessages(await studio.store(), ids.threadId)).toEqual([
        ['user', 'First'],
        ['assistant', 'First reply.'],
        ['assistant', 'Second reply.'],
      ]);
    });

    it("Studio's own chat (Mastra's send-message, which holds no thread lock): the turn leaves nothing behind", async () => {
      const ids = { threadId: 'studio-chat-doomed', resourceId: 'ada' };
      const agent = studio.mastra.getAgent('companionAgent');
      const sendMessage = (message: string) => studio.post('/api/agents/companionAgent/send-message', { message, ...ids, ifIdle: { streamOptions: {} } });
      const runEnded = () => vi.waitFor(() => expect(agent.getActiveThreadRunId(ids)).toBeUndefined());
      studio.model.script({ text: 'First reply.' }, { text: 'A reply nobody keeps.' });
      expect((await sendMessage('First')).status).toBe(200);
      await runEnded();

      const gate = deferred();
      studio.model.beforeReply = () => gate.promise;
      expect((await sendMessage('Second')).status).toBe(200);
      await vi.waitFor(() => expect(studio.model.requests).toHaveLength(2));
      const remove = await studio.app.request(`/api/memory/threads/${ids.threadId}?agentId=companionAgent&resourceId=ada`, { method: 'DELETE' });
      expect(remove.status).toBe(200);
      studio.model.beforeReply = undefined;
      gate.resolve();
      await runEnded();

      expect((await studio.get(`/threads/${ids.threadId}?resourceId=ada`)).status).toBe(404);
      expect(await storedMessages(await studio.store(), ids.threadId)).toEqual([]);
    });

    it("Studio's own chat, a long reply: no draft lands after the deletion", async () => {
      const ids = { threadId: 'studio-draft-doomed', resourceId: 'ada' };
      const agent = studio.mastra.getAgent('companionAgent');
      studio.model.script({ text: ['Hel', 'lo'], hang: true });
      const sent = await studio.post('/api/agents/companionAgent/send-message', { message: 'Hi', ...ids, ifIdle: { streamOptions: {} } });
      expect(sent.status).toBe(200);
      await vi.waitFor(() => expect(studio.model.requests).toHaveLength(1));
      const remove = await studio.app.request(`/api/memory/threads/${ids.threadId}?agentId=companionAgent&resourceId=ada`, { method: 'DELETE' });
      expect(remove.status).toBe(200);
      // The reply keeps streaming past the draft interval (1 s): its drafts are dropped, the thread being deleted.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      expect(await storedMessages(await studio.store(), ids.threadId)).toEqual([]);

      const aborted = await studio.post('/api/agents/companionAgent/threads/abort', ids);
      expect(await aborted.json()).toEqual({ aborted: true });
      await vi.waitFor(() => expect(agent.getActiveThreadRunId(ids)).toBeUndefined());

      expect((await studio.get(`/threads/${ids.threadId}?resourceId=ada`)).status).toBe(404);
      expect(await storedMessages(await studio.store(), ids.threadId)).toEqual([]);
    });
  });
});

/**
 * Ada's thread gets a first turn, then a second one held mid-model while `remove` deletes the thread: the deletion
 * must wait for that turn, then take everything it stored. Answers the deletion's response.
 */
async function deleteDuringTurn(app: AppHarness, path: string, threadId: string, remove: () => Promise<Response>) {
  const ids = { threadId, resourceId: 'ada' };
  app.model.script({ text: 'First reply.' }, { text: 'A reply nobody keeps.' }, { text: 'A fresh start.' });
  await turn(app, GENERATE, { ...userSays('First'), ...ids });
  const deleted = await removeWhileTurnHeld(app, path, ids, remove);

  expect((await app.get(`/threads/${threadId}?resourceId=ada`)).status).toBe(404);
  expect(await storedMessages(await app.store(), threadId)).toEqual([]);
  // The same id names a new, empty conversation: nothing of the deleted one reaches the model.
  await turn(app, GENERATE, { ...userSays('Hello?'), ...ids });
  expect(conversationOf(app.model.requests[2]!)).toEqual([{ role: 'user', content: 'Hello?' }]);
  return deleted;
}

/**
 * Runs `remove` while the thread's second turn ("Second") is held mid-model, its user message already stored by the
 * turn journal: the deletion must not answer before the turn has. Answers the deletion's response.
 */
async function removeWhileTurnHeld(app: AppHarness, path: string, ids: { threadId: string; resourceId: string }, remove: () => Promise<Response>) {
  const gate = deferred();
  app.model.beforeReply = () => gate.promise;
  const running = app.post(path, { ...userSays('Second'), ...ids });
  await vi.waitFor(() => expect(app.model.requests).toHaveLength(2));
  let deletionAnswered = false;
  const deletion = remove().finally(() => (deletionAnswered = true));
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(deletionAnswered).toBe(false);

  app.model.beforeReply = undefined;
  gate.resolve();
  const reply = await running;
  expect(reply.status).toBe(200);
  await readAnswer(reply);
  const deleted = await deletion;
  expect(deleted.status).toBe(200);
  return deleted;
}
