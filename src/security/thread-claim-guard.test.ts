import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type AppHarness } from '../../tests/fixtures/app-harness.ts';
import { seedThread } from '../../tests/fixtures/seed-thread.ts';
import { storeSnapshot } from '../../tests/fixtures/store-snapshot.ts';

// Development mode opens Mastra's memory routes (for Studio), where the guard stands.
describe('threadClaimGuard', () => {
  let h: AppHarness;
  beforeAll(async () => {
    h = await startApp({ SERVER_MODE: 'development' });
    await seedThread(await h.store(), { threadId: 'victim-thread', resourceId: 'victim' }, 2);
    await seedThread(await h.store(), { threadId: 'own-thread', resourceId: 'attacker' }, 2);
  });
  afterAll(() => h.close());

  /** Mastra's memory routes name the agent in the query; its conversations API in the body. */
  const urlOf = (path: string) => (path.startsWith('/api/memory') ? `${path}?agentId=companionAgent` : path);
  const post = (path: string, body: unknown) =>
    h.app.request(urlOf(path), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it.each([
    ['creating', '/api/memory/threads', { threadId: 'victim-thread', resourceId: 'attacker', title: 'taken over' }],
    ['creating (network)', '/api/memory/network/threads', { threadId: 'victim-thread', resourceId: 'attacker', title: 'taken over' }],
    ['cloning onto', '/api/memory/threads/own-thread/clone', { newThreadId: 'victim-thread', resourceId: 'attacker' }],
    ['creating a conversation on', '/api/v1/conversations', { agent_id: 'companionAgent', conversation_id: 'victim-thread', resource_id: 'attacker' }],
    ['creating an unowned conversation on', '/api/v1/conversations', { agent_id: 'companionAgent', conversation_id: 'victim-thread' }],
  ])("refuses %s another owner's thread id with 404, and the thread stays theirs", async (_name, path, body) => {
    const before = await storeSnapshot(await h.store());
    const response = await post(path, body);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', details: { threadId: 'victim-thread' } });
    expect(await storeSnapshot(await h.store())).toEqual(before);
  });

  it('lets Mastra create a thread under a new id, or recreate the caller’s own', async () => {
    expect((await post('/api/memory/threads', { threadId: 'fresh-thread', resourceId: 'attacker', title: 'new' })).status).toBe(200);
    expect((await post('/api/memory/threads', { threadId: 'own-thread', resourceId: 'attacker', title: 'renamed' })).status).toBe(200);
    expect((await post('/api/memory/threads', { resourceId: 'attacker', title: 'no id' })).status).toBe(200);
    // A conversation created without an owner is its own (Mastra's rule), so creating it again is its owner's act.
    for (let time = 0; time < 2; time++) {
      const created = await post('/api/v1/conversations', { agent_id: 'companionAgent', conversation_id: 'fresh-conversation' });
      expect(created.status).toBe(200);
      expect(await created.json()).toMatchObject({ id: 'fresh-conversation', thread: { resourceId: 'fresh-conversation' } });
    }
  });

  /** A message saved as Studio saves one, under the given id, for `resourceId`'s thread `threadId`. */
  const savedMessage = (id: string, threadId: string, resourceId: string) => ({
    id,
    threadId,
    resourceId,
    role: 'assistant',
    createdAt: new Date().toISOString(),
    content: { format: 2, parts: [{ type: 'text', text: 'rewritten' }] },
  });
  const storedIdsOf = async (threadId: string) =>
    (await (await h.memoryStore()).listMessages({ threadId, perPage: false })).messages.map((message) => message.id);

  it.each(['/api/memory/save-messages', '/api/memory/network/save-messages'])(
    "refuses saving over another owner's message (%s) with 404: it stays in its thread, as it was",
    async (path) => {
      const [victims] = await storedIdsOf('victim-thread');
      const before = await storeSnapshot(await h.store());
      const response = await post(path, { messages: [savedMessage(victims!, 'own-thread', 'attacker')] });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', details: { messageId: victims } });
      expect(await storeSnapshot(await h.store())).toEqual(before);
    },
  );

  it("refuses an id given as a number too (PostgreSQL matches it against the stored text id)", async () => {
    const victims = { ...savedMessage('12345', 'victim-thread', 'victim'), content: { format: 2 as const, parts: [{ type: 'text' as const, text: 'mine' }] } };
    await (await h.memoryStore()).saveMessages({ messages: [{ ...victims, role: 'user', createdAt: new Date() }] });
    const before = await storeSnapshot(await h.store());
    const response = await post('/api/memory/save-messages', { messages: [{ ...savedMessage('', 'own-thread', 'attacker'), id: 12345 }] });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: 'NOT_FOUND', details: { messageId: '12345' } });
    expect(await storeSnapshot(await h.store())).toEqual(before);
  });

  it("lets Mastra save a new message, or one of the owner's own, into the owner's thread", async () => {
    const [own, ...others] = await storedIdsOf('own-thread');
    const response = await post('/api/memory/save-messages', {
      messages: [savedMessage(own!, 'own-thread', 'attacker'), savedMessage(randomUUID(), 'own-thread', 'attacker')],
    });
    expect(response.status).toBe(200);
    expect(await storedIdsOf('own-thread')).toHaveLength(others.length + 2);
  });

  // Mastra reads a multipart body as the route's parameters too: a form naming the thread must not slip past.
  it.each([
    ['/api/memory/threads', { threadId: 'victim-thread', resourceId: 'attacker', title: 'taken over' }],
    ['/api/v1/conversations', { agent_id: 'companionAgent', conversation_id: 'victim-thread', resource_id: 'attacker' }],
  ])('refuses a multipart body on %s with 415, and the thread stays its owner’s', async (path, fields) => {
    const before = await storeSnapshot(await h.store());
    const form = new FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    const response = await h.app.request(urlOf(path), { method: 'POST', body: form });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: 'INVALID_REQUEST', error: 'Content-Type must be application/json.' });
    expect(await storeSnapshot(await h.store())).toEqual(before);
  });
});
