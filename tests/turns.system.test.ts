import { once } from 'node:events';
import { connect } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { GENERATE, STREAM, startCompanion, userSays, type CompanionHarness } from './fixtures/companion-harness.ts';
import { deferred } from './fixtures/openai-stand-in.ts';
import { eventsOf, readFrames, readUntilEvent, readUntilFrame, sseFrames } from './fixtures/sse.ts';
import { NATIVE } from './fixtures/spec-requests.ts';

// Short limits, so every bound shows within a test: the model may be silent for 1.5 s (a retry waits 1 s), a turn
// may take 4 s (queue wait included), one turn may wait behind a thread's running one, a 429 is retried twice.
const IDLE_MS = 1_500;
const TURN_MS = 4_000;
let h: CompanionHarness;
beforeAll(async () => {
  h = await startCompanion({
    MODEL_IDLE_TIMEOUT_MS: String(IDLE_MS),
    MODEL_TIMEOUT_MS: String(TURN_MS),
    MAX_QUEUED_TURNS: '1',
    MODEL_MAX_RETRIES: '2',
    MODEL_MAX_OUTPUT_TOKENS: '256',
  });
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const newThread = () => ({ threadId: randomUUID(), resourceId: 'turns' });

/** A request that gives up after a while, so a thread that stays locked fails the test instead of hanging it. */
function send(path: string, body: unknown, signal: AbortSignal = AbortSignal.timeout(8_000)) {
  return fetch(h.service.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
}

/** The thread's next turn: it must run, and answer. */
async function expectNextTurnAnswers(ids: { threadId: string; resourceId: string }) {
  h.model.script({ text: 'Next.' });
  const next = await send(GENERATE, { ...userSays('Still there?'), ...ids });
  expect(next.status).toBe(200);
  expect((await next.json()).text).toBe('Next.');
}

/** Starts a streamed turn whose model reply is held after its first chunk until `finish()`. */
async function startHeldTurn(ids: { threadId: string; resourceId: string }) {
  const gate = deferred();
  h.model.script({ text: ['first', ' second'] });
  h.model.beforeChunk = (index) => (index === 1 ? gate.promise : undefined);
  const frames = sseFrames(await send(STREAM, { ...userSays('Hold on'), ...ids }));
  await readUntilEvent(frames, 'text');
  return {
    async finish() {
      gate.resolve();
      for await (const _ of frames);
    },
  };
}

/** Gives a request time to reach the server and join its thread's queue. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('the per-thread queue', () => {
  it.each([1, 2, 3])('drops a queued /stream turn whose client hangs up, and the thread goes on (attempt %i)', async () => {
    const ids = newThread();
    const running = await startHeldTurn(ids);

    const queuedClient = new AbortController();
    const queued = send(STREAM, { ...userSays('Me too'), ...ids }, queuedClient.signal).catch(() => undefined);
    await settle();
    queuedClient.abort();
    await queued;
    await running.finish();

    await expectNextTurnAnswers(ids);
    // The turn whose client left never reached the model.
    expect(h.model.requests.map((r) => r.messages.at(-1)?.content)).toEqual(['Hold on', 'Still there?']);
  });

  it('answers a turn beyond MAX_QUEUED_TURNS with 429 RATE_LIMITED, and runs the queued one', async () => {
    const ids = newThread();
    const running = await startHeldTurn(ids);
    h.model.script({ text: 'Queued reply.' });
    const queued = send(GENERATE, { ...userSays('Queued'), ...ids });
    await settle();

    const refused = await send(GENERATE, { ...userSays('One too many'), ...ids });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: `Thread ${ids.threadId} already has 1 turn(s) waiting; send the next message after a reply.`,
      code: 'RATE_LIMITED',
      details: { threadId: ids.threadId, maxQueuedTurns: 1 },
    });

    await running.finish();
    expect((await (await queued).json()).text).toBe('Queued reply.');
    expect(h.model.requests).toHaveLength(2);
  });

  it('lets other threads run while one is busy', async () => {
    const busy = await startHeldTurn(newThread());
    await expectNextTurnAnswers(newThread());
    await busy.finish();
  });
});

describe('time limits', () => {
  it('answers a silent model on /generate with 504 MODEL_ERROR, aborts it, and the thread goes on', async () => {
    const ids = newThread();
    h.model.script({ text: ['never sent'], hang: true });

    const response = await send(GENERATE, { ...userSays('Hello?'), ...ids });
    expect(response.status).toBe(504);
    expect(await response.json()).toEqual({
      error: `The model sent nothing for ${IDLE_MS} ms; the run was stopped.`,
      code: 'MODEL_ERROR',
      details: { timeout: 'idle', timeoutMs: IDLE_MS },
    });
    await h.model.requests[0].aborted;
    await expectNextTurnAnswers(ids);
  });

  it('ends a silent model on /stream with one error event, and the thread goes on', async () => {
    const ids = newThread();
    h.model.script({ text: ['Thinking'], hang: true });

    const events = eventsOf(await readFrames(await send(STREAM, { ...userSays('Hello?'), ...ids })));
    expect(events.map((e) => e.type)).toEqual(['start', 'step-start', 'text', 'error']);
    expect(events.at(-1).error).toEqual({ code: 'MODEL_ERROR', message: `The model sent nothing for ${IDLE_MS} ms; the run was stopped.` });
    await h.model.requests[0].aborted;
    await expectNextTurnAnswers(ids);
  });

  it('ends a turn that outgrows MODEL_TIMEOUT_MS with one error event, though the model never went silent', async () => {
    const ids = newThread();
    const chunks = Array.from({ length: 100 }, (_, i) => `${i} `);
    h.model.script({ text: chunks });
    h.model.beforeChunk = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS / 4));

    const events = eventsOf(await readFrames(await send(STREAM, { ...userSays('Count slowly'), ...ids })));
    const texts = events.filter((e) => e.type === 'text');
    expect(texts.length).toBeGreaterThan(0);
    expect(texts.length).toBeLessThan(chunks.length);
    expect(events.at(-1)).toEqual({
      type: 'error',
      error: { code: 'MODEL_ERROR', message: `The turn took longer than ${TURN_MS} ms; the run was stopped.` },
      runId: events[0].runId,
    });
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    await h.model.requests[0].aborted;
    h.model.beforeChunk = undefined;
    await expectNextTurnAnswers(ids);
  });

  // Its stream ended with Mastra's `abort` and a `finish` (reason "tripwire"), which a client reads as a reply complete.
  it('ends a native stream (@mastra/client-js) that outgrows MODEL_TIMEOUT_MS with an error frame in place of its finish', async () => {
    const ids = newThread();
    h.model.script({ text: ['Once upon'], hang: true });
    const memory = { thread: ids.threadId, resource: ids.resourceId };
    const response = await h.post(STREAM, { messages: 'A story?', memory }, NATIVE);
    const frames = (await response.text()).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.slice('data: '.length)));
    expect(chunks.map((chunk) => chunk.type)).not.toContain('finish');
    expect(chunks.at(-1)).toMatchObject({
      type: 'error',
      payload: { error: { code: 'MODEL_ERROR', message: `The turn took longer than ${TURN_MS} ms; the run was stopped.` } },
    });
    await expectNextTurnAnswers(ids);
  });
});

describe('a client hanging up mid-turn', () => {
  it('mid-model: the model call is aborted and the thread goes on', async () => {
    const ids = newThread();
    h.model.script({ text: ['Once upon'], hang: true });
    const client = new AbortController();
    const frames = sseFrames(await send(STREAM, { ...userSays('A story?'), ...ids }, client.signal));
    for await (const raw of frames) if (eventsOf([raw])[0]?.type === 'text') break;
    client.abort();
    await h.model.requests[0].aborted;
    await expectNextTurnAnswers(ids);
  });

  it('mid-tool: the tool call is aborted and the thread goes on', async () => {
    const ids = newThread();
    h.weather.delayMs = 60_000;
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] });
    const client = new AbortController();
    const frames = sseFrames(await send(STREAM, { ...userSays('Weather in Paris?'), ...ids }, client.signal));
    for await (const raw of frames) if (eventsOf([raw])[0]?.type === 'tool-call') break;
    // The client hangs up while the tool is at Open-Meteo.
    await vi.waitFor(() => expect(h.weather.requests).toHaveLength(1));
    client.abort();
    await expectNextTurnAnswers(ids);
    expect(h.weather.requests).toHaveLength(1);
    // The stopped turn's reply, a tool call the model never got to answer, reads back as interrupted.
    const stored = await fetch(`${h.service.url}/threads/${ids.threadId}/messages?resourceId=${ids.resourceId}`);
    expect((await stored.json()).messages.slice(0, 2)).toMatchObject([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: '', interrupted: true },
    ]);
  });
});

describe('a native client (@mastra/client-js) hanging up mid-reply', () => {
  // Mastra's adapter stops reading a run whose client has gone: its stream ended before the run had stored its reply,
  // the thread's next turn ran without it, and the stopped reply then landed after that turn's message, which
  // Mastra took the next reply into: [user, user, assistant "first0 … Second reply." (interrupted)].
  it("stores the stopped reply before the thread's queued turn runs, each reply a message of its own", async () => {
    const ids = newThread();
    h.model.beforeChunk = () => new Promise((resolve) => setTimeout(resolve, 25));
    h.model.script({ text: Array.from({ length: 40 }, (_, i) => `first${i} `) }, { text: ['Second ', 'reply.'] });
    const memory = { thread: ids.threadId, resource: ids.resourceId };
    const native = sseFrames(await h.post(STREAM, { messages: [{ role: 'user', content: 'Tell me a long story.' }], memory }, NATIVE));
    let texts = 0;
    await readUntilFrame(native, (frame) => frame.includes('"type":"text-delta"') && ++texts === 5, 'five text deltas');
    const next = send(STREAM, { ...userSays('And then?'), ...ids });
    await settle();
    // The native client leaves.
    await native.return(undefined);
    expect(eventsOf(await readFrames(await next)).at(-1)).toMatchObject({ type: 'run-finish' });
    const stored = await fetch(`${h.service.url}/threads/${ids.threadId}/messages?resourceId=${ids.resourceId}`);
    expect((await stored.json()).messages.map(({ role, content, interrupted }: { role: string; content: string; interrupted?: boolean }) => [role, content, interrupted ?? false])).toEqual([
      ['user', 'Tell me a long story.', false],
      ['assistant', expect.stringMatching(/^first0 first1 first2 first3 first4 /), true],
      ['user', 'And then?', false],
      ['assistant', 'Second reply.', false],
    ]);
  });
});

describe('the model server', () => {
  it('passes an upstream 429 with a long Retry-After on at once, instead of waiting it out', async () => {
    h.model.script({ error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '30' } } });
    const response = await send(GENERATE, { ...userSays('Hi'), ...newThread() });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(await response.json()).toEqual({
      error: 'The language model is rate limiting requests; try again in 30 s.',
      code: 'RATE_LIMITED',
      details: { upstreamStatus: 429, retryAfterSeconds: 30 },
    });
    expect(h.model.requests).toHaveLength(1);
  });

  it('ends a stream with one RATE_LIMITED error event naming the wait, instead of waiting it out', async () => {
    h.model.script({ error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '30' } } });
    const events = eventsOf(await readFrames(await send(STREAM, { ...userSays('Hi'), ...newThread() })));
    expect(events.at(-1).error).toEqual({ code: 'RATE_LIMITED', message: 'The language model is rate limiting requests; try again in 30 s.' });
    expect(h.model.requests).toHaveLength(1);
  });

  it('retries an upstream 429 that asks for a short wait', async () => {
    h.model.script({ error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '50' } } }, { text: 'Made it.' });
    const response = await send(GENERATE, { ...userSays('Hi'), ...newThread() });
    expect(response.status).toBe(200);
    expect((await response.json()).text).toBe('Made it.');
    expect(h.model.requests).toHaveLength(2);
  });

  it('caps every reply at MODEL_MAX_OUTPUT_TOKENS', async () => {
    h.model.script({ text: 'a' }, { text: ['b'] });
    await send(GENERATE, userSays('Hi'));
    await readFrames(await send(STREAM, userSays('Hi')));
    expect(h.model.requests.map((r) => r.body.max_tokens)).toEqual([256, 256]);
  });
});

describe('a graceful stop (SIGTERM)', () => {
  it('stops a turn that outlives the drain a moment before it ends: its stream ends with an error event, then the process exits', async () => {
    const stopping = await startCompanion({ SHUTDOWN_DRAIN_MS: '1500' });
    try {
      stopping.model.script({ text: ['Once upon', ' a time'], hang: true });
      const reply = await stopping.post(STREAM, { ...userSays('Tell me a story.'), threadId: 'drain-cut', resourceId: 'drain' });
      const reader = reply.body!.getReader();
      let streamed = '';
      while (!streamed.includes(' a time')) streamed += new TextDecoder().decode((await reader.read()).value);
      const stopped = stopping.service.stop('SIGTERM');
      for (let next = await reader.read(); !next.done; next = await reader.read()) streamed += new TextDecoder().decode(next.value);
      expect(eventsOf(streamed.split('\n\n').filter(Boolean)).at(-1)).toEqual({
        type: 'error',
        runId: expect.any(String),
        error: { message: 'The service is restarting; the reply was stopped. Send the message again.', code: 'MODEL_ERROR' },
      });
      await stopped;
    } finally {
      await stopping.close();
    }
  }, 30_000);

  it('lets a running turn finish beyond Mastra’s 5 s drain, within SHUTDOWN_DRAIN_MS, then exits', async () => {
    const stopping = await startCompanion({ SHUTDOWN_DRAIN_MS: '15000' });
    try {
      // A model that takes 6.5 s to answer.
      stopping.model.beforeReply = () => new Promise((resolve) => setTimeout(resolve, 6_500));
      stopping.model.script({ text: Array.from({ length: 10 }, (_, i) => `part ${i}. `) });
      const answer = stopping.post(GENERATE, { ...userSays('Tell me a long story.'), threadId: 'drain', resourceId: 'drain' });
      while (stopping.model.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
      const stopped = stopping.service.stop('SIGTERM');
      const response = await answer;
      expect(response.status).toBe(200);
      expect((await response.json()).text).toBe(Array.from({ length: 10 }, (_, i) => `part ${i}. `).join(''));
      await stopped;
    } finally {
      await stopping.close();
    }
  }, 30_000);
});

describe('an HTTP/1.0 client', () => {
  it('reads /stream as plain SSE frames, without chunk framing, the connection closed after the last', async () => {
    h.model.script({ text: ['Hello', ' there'] });
    const { hostname, port } = new URL(h.service.url);
    const body = JSON.stringify({ ...userSays('Hi'), ...newThread() });
    const socket = connect(Number(port), hostname);
    socket.write(`POST ${STREAM} HTTP/1.0\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    let received = '';
    socket.on('data', (data: Buffer) => (received += data.toString('utf8')));
    await once(socket, 'close');
    const [head, frames] = received.split('\r\n\r\n');
    expect(head).not.toMatch(/transfer-encoding/i);
    const events = frames!.split('\n\n').filter(Boolean).map((frame) => JSON.parse(frame.replace(/^data: /, '')).type);
    expect(events).toEqual(['start', 'step-start', 'text', 'text', 'step-finish', 'run-finish']);
  });
});
