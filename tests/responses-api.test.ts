import { afterAll, beforeAll, expect, it } from 'vitest';
import { conversationOf, GENERATE, startApp, type AppHarness } from './fixtures/app-harness.ts';

// OPENAI_API=responses: the OpenAI Responses API, with history sent inline so it
// works on servers other than OpenAI's own (no `item_reference`s).
let h: AppHarness;
beforeAll(async () => {
  h = await startApp({ OPENAI_API: 'responses' });
});
afterAll(() => h.close());

it('answers through /v1/responses and continues a thread with inline history', async () => {
  h.model.script({ text: 'Nice to meet you, Ada.' }, { text: 'Your name is Ada.' });
  const conversation = { threadId: 'responses-thread', resourceId: 'ada' };

  const first = await h.post(GENERATE, { messages: [{ role: 'user', content: 'I am Ada.' }], ...conversation });
  const second = await h.post(GENERATE, { messages: [{ role: 'user', content: 'What is my name?' }], ...conversation });

  expect(first.status).toBe(200);
  expect((await second.json()).text).toBe('Your name is Ada.');
  expect(h.model.requests.map((r) => [r.api, r.path])).toEqual([
    ['responses', '/v1/responses'],
    ['responses', '/v1/responses'],
  ]);
  const secondTurn = h.model.requests[1];
  expect(secondTurn.body.store).toBe(false);
  expect(conversationOf(secondTurn)).toEqual([
    { role: 'user', content: 'I am Ada.' },
    { role: 'assistant', content: 'Nice to meet you, Ada.' },
    { role: 'user', content: 'What is my name?' },
  ]);
});
