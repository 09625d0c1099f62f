import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATE, STREAM, startCompanion, userSays, type CompanionHarness } from './fixtures/companion-harness.ts';
import { NATIVE } from './fixtures/spec-requests.ts';
import { freePort } from './fixtures/service.ts';

const OUTBOUND_REQUESTS_HOOK = join(import.meta.dirname, 'fixtures', 'outbound-requests.ts');

/** `npm start` as an operator runs it: JSON lines on stdout, shipped as they are. */
let h: CompanionHarness;
beforeAll(async () => {
  h = await startCompanion({ LOG_LEVEL: 'info' });
});
afterAll(() => h.close());

function isJson(line: string) {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

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

it("names the thread and its owner on the access lines of the thread API and of native turns", async () => {
  h.model.script({ text: 'Hello.' });
  const native = await h.post(GENERATE, { messages: 'Hi', memory: { thread: 'native-log-thread', resource: 'log-user' } }, NATIVE);
  expect(native.status).toBe(200);
  const read = await fetch(`${h.service.url}/threads/native-log-thread/messages?resourceId=log-user`);
  expect(read.status).toBe(200);
  for (const response of [native, read]) {
    const access = await logEvent((event) => event.msg === 'request' && event.traceId === response.headers.get('x-trace-id'));
    expect(access).toMatchObject({ threadId: 'native-log-thread', resourceId: 'log-user' });
  }
});

it("logs a model failure by class, code and upstream status, never the prompt, the words, the key or the model server's text", async () => {
  h.model.script({ error: { status: 500, message: 'upstream exploded reading key sk-abc***xyz' } });
  const response = await h.post(GENERATE, userSays('my most private diary entry'));
  expect(response.status).toBe(500);

  const traceId = response.headers.get('x-trace-id');
  const failure = await logEvent((event) => event.msg === 'request failed' && event.traceId === traceId);
  expect(failure).toMatchObject({ level: 50, code: 'MODEL_ERROR', upstreamStatus: 500, errorClass: 'AI_APICallError' });
  await logEvent((event) => event.msg === 'request' && event.traceId === traceId);

  // Mastra's agent logs the failed call too: without the model server's words (its message is also the stack's first line).
  const agentLine = await logEvent((event) => event.msg === 'Upstream LLM API error');
  expect(agentLine?.error).toMatchObject({ name: 'AI_APICallError', statusCode: 500, message: 'The model server answered 500.' });
  const output = h.service.output();
  expect(output).not.toContain('sk-abc');
  expect(output).not.toContain('upstream exploded');
  expect(output).not.toContain('my most private diary entry');
  expect(output).not.toContain('You are the Friend');
  expect(output).not.toContain('test-key');
});

it("warns of the model server's rate limit passed on as a 429, and writes no failure line for a client's own mistake", async () => {
  h.model.script({ error: { status: 429, message: 'slow down', headers: { 'retry-after': '20' } } });
  const limited = await h.post(GENERATE, userSays('Hi'));
  expect(limited.status).toBe(429);
  const warning = await logEvent((event) => event.msg === 'request failed' && event.traceId === limited.headers.get('x-trace-id'));
  expect(warning).toMatchObject({ level: 40, code: 'RATE_LIMITED', status: 429, upstreamStatus: 429 });

  const refused = await h.post(GENERATE, { messages: [] });
  expect(refused.status).toBe(400);
  const traceId = refused.headers.get('x-trace-id');
  expect(await logEvent((event) => event.msg === 'request' && event.traceId === traceId)).toMatchObject({ status: 400 });
  expect(lines().map((line) => JSON.parse(line)).filter((event) => event.traceId === traceId && event.msg === 'request failed')).toEqual([]);
});

it("logs a native client's model failure as a SPEC turn's, once, with its request's traceId, without the model server's text", async () => {
  h.model.script({ error: { status: 401, message: 'Incorrect API key provided: sk-proj-LEAKED****WXYZ' } });
  const response = await h.post(GENERATE, { messages: 'my native secret' }, NATIVE);
  expect(response.status).toBe(500);
  const traceId = response.headers.get('x-trace-id');
  const failure = await logEvent((event) => event.msg === 'request failed' && event.traceId === traceId);
  expect(failure).toMatchObject({ level: 50, code: 'MODEL_ERROR', upstreamStatus: 401, errorClass: 'AI_APICallError' });
  const errorLines = lines().map((line) => JSON.parse(line)).filter((event) => event.traceId === traceId && event.level === 50);
  expect(errorLines.map((event) => event.msg)).toEqual(['Upstream LLM API error', 'request failed']);
  const output = h.service.output();
  expect(output).not.toContain('LEAKED');
  expect(output).not.toContain('my native secret');
});

it('logs a failed tool call (the request succeeds) by tool, reason and upstream status, with the traceId, never the place asked for', async () => {
  h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] }, { text: 'The weather service is down.' });
  h.weather.failNext(503);
  const response = await h.post(GENERATE, userSays('Weather in Paris?'));
  expect(response.status).toBe(200);
  const failure = await logEvent((event) => event.msg === 'tool failed' && event.traceId === response.headers.get('x-trace-id'));
  expect(failure).toEqual(expect.objectContaining({ level: 40, tool: 'weatherTool', errorClass: 'ToolFailure', reason: 'upstream-status', upstreamStatus: 503 }));
  expect(JSON.stringify(failure)).not.toContain('Paris');
});

it("logs a tool call whose arguments do not fit the tool with its field errors, never the arguments", async () => {
  h.model.script(
    { toolCalls: [{ name: 'spiritualDestinationsTool', args: { query: 'a quiet place to grieve my mother', limit: 'many' } }] },
    { text: 'Let me try again.' },
  );
  const response = await h.post(GENERATE, userSays('Where can I go?'));
  expect(response.status).toBe(200);
  const warning = await logEvent((event) => event.msg === 'Tool input validation failed' && event.traceId === response.headers.get('x-trace-id'));
  expect(warning).toMatchObject({ level: 40, tool: 'spiritualDestinationsTool', validationError: expect.stringContaining('limit') });
  expect(h.service.output()).not.toContain('grieve my mother');
});

it.each(['off', 'on'])('keeps the conversation out of the log at debug level too, tracing %s: no reply text, no tool arguments or results', async (tracing) => {
  // With tracing on, Mastra's tool-call debug line also carried the span (the user's message, the system prompt).
  const verbose = await startCompanion({ LOG_LEVEL: 'debug', TRACING: tracing, DATA_DIR: mkdtempSync(join(tmpdir(), 'debug-log-')) });
  try {
    verbose.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Varanasi' } }] }, { text: 'SECRET REPLY about the ghats' }, { text: ['SECRET', ' STREAM'] });
    expect((await verbose.post(GENERATE, { ...userSays('USER WORDS'), threadId: 'debug-thread', resourceId: 'ada' })).status).toBe(200);
    await (await verbose.post(STREAM, { ...userSays('MORE USER WORDS'), threadId: 'debug-thread', resourceId: 'ada' })).text();
    await verbose.service.stop();
    const output = verbose.service.output();
    expect(output).toContain('"level":20');
    for (const secret of ['SECRET', 'USER WORDS', 'Varanasi', 'Thunderstorm', 'You are the Friend']) expect(output).not.toContain(secret);
  } finally {
    await verbose.close();
  }
});

it("reports the conversation store's failures as JSON lines too, with nothing else in the output", async () => {
  const broken = await startCompanion({ LOG_LEVEL: 'info', DATABASE_URL: `http://127.0.0.1:${await freePort()}` });
  try {
    const response = await broken.post(GENERATE, { ...userSays('Hi'), threadId: 't', resourceId: 'ada' });
    expect(response.status).toBe(500);
    expect((await response.json()).code).toBe('MEMORY_NOT_INITIALIZED');
    await broken.service.stop();

    const output = broken.service.output().split('\n').filter((line) => line.trim() !== '');
    expect(output.filter((line) => !isJson(line))).toEqual([]);
    expect(output.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ level: 50, component: 'STORAGE', msg: 'Storage init failed; will retry on next storage call' }),
    );
  } finally {
    await broken.close();
  }
});

describe('outbound connections', () => {
  /** The service as `npm start` runs it, with every outbound request it starts listed (tests/fixtures/outbound-requests.ts). */
  async function startListed(env: Record<string, string> = {}) {
    const log = join(mkdtempSync(join(tmpdir(), 'outbound-')), 'requests.log');
    writeFileSync(log, '');
    const companion = await startCompanion({ NODE_OPTIONS: `--import ${OUTBOUND_REQUESTS_HOOK}`, OUTBOUND_REQUESTS_LOG: log, ...env });
    const origins = () => [...new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean))].sort();
    return { companion, origins };
  }

  it("connects to nothing but the servers it is configured with: Mastra's usage analytics stay off", async () => {
    const { companion, origins } = await startListed();
    try {
      companion.model.script({ text: 'Hello.' });
      expect((await companion.post(GENERATE, { ...userSays('Hi'), threadId: 'out-thread', resourceId: 'ada' })).status).toBe(200);
      // Mastra reports as its server starts (see the next test); this leaves it ample time after the turn, too.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(origins()).toEqual([new URL(companion.model.baseURL).origin]);
    } finally {
      await companion.close();
    }
  });

  it('sends Mastra its usage report only when the operator opts in (MASTRA_TELEMETRY_DISABLED=false)', async () => {
    const { companion, origins } = await startListed({ MASTRA_TELEMETRY_DISABLED: 'false' });
    try {
      for (let attempt = 0; attempt < 100 && origins().length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(origins()).toEqual(['https://us.posthog.com']);
    } finally {
      await companion.close();
    }
  });
});
