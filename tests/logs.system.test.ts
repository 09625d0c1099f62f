import { afterAll, beforeAll, expect, it } from 'vitest';
import { GENERATE, startCompanion, userSays, type CompanionHarness } from './fixtures/companion-harness.ts';

/** `npm start` as an operator runs it: JSON lines on stdout, shipped as they are. */
let h: CompanionHarness;
beforeAll(async () => {
  h = await startCompanion({ LOG_LEVEL: 'info' });
});
afterAll(() => h.close());

const lines = () => h.service.output().split('\n').filter((line) => line.trim() !== '');

/** Log lines are written asynchronously: wait (bounded) for the event the test is about. */
async function logEvent(matches: (event: Record<string, unknown>) => boolean) {
  for (let attempt = 0; attempt < 100; attempt++) {
    const event = lines().map((line) => JSON.parse(line)).find(matches);
    if (event) return event;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

it('writes every log event as one JSON line, with one access line per request', async () => {
  h.model.script({ text: 'Hello.' });
  const response = await h.post(GENERATE, { ...userSays('Hi there'), threadId: 'log-thread', resourceId: 'log-user' });
  expect(response.status).toBe(200);

  const access = await logEvent((event) => event.msg === 'request' && event.path === GENERATE);
  expect(access).toMatchObject({
    level: 30,
    method: 'POST',
    status: 200,
    traceId: response.headers.get('x-trace-id'),
    threadId: 'log-thread',
    resourceId: 'log-user',
    ms: expect.any(Number),
  });
});

it('logs a model failure by class, code and upstream status, never the prompt, the words or the key', async () => {
  h.model.script({ error: { status: 500, message: 'upstream exploded while reading the prompt' } });
  const response = await h.post(GENERATE, userSays('my most private diary entry'));
  expect(response.status).toBe(500);

  const traceId = response.headers.get('x-trace-id');
  const failure = await logEvent((event) => event.msg === 'request failed' && event.traceId === traceId);
  expect(failure).toMatchObject({ level: 50, code: 'MODEL_ERROR', upstreamStatus: 500, errorClass: 'AI_APICallError' });
  await logEvent((event) => event.msg === 'request' && event.traceId === traceId);

  const output = h.service.output();
  expect(output).toContain('Upstream LLM API error');
  expect(output).not.toContain('my most private diary entry');
  expect(output).not.toContain('You are the Friend');
  expect(output).not.toContain('test-key');
});
