import { MastraClient } from '@mastra/client-js';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import { conversationOf, GENERATE, STREAM, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { deferred } from './fixtures/openai-stand-in.ts';
import { PARIS_WEATHER } from './fixtures/open-meteo-stand-in.ts';
import { eventsOf, frame, readFrames, sseFrames, toolThenTextOrder } from './fixtures/sse.ts';
import { storedMessages } from './fixtures/stored-messages.ts';

let h: AppHarness;
beforeAll(async () => {
  h = await startApp();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

describe('POST /stream: SPEC events', () => {
  it('streams a text run as exact data frames', async () => {
    h.model.script({ text: ['Hel', 'lo', ' there'], usage: { inputTokens: 9, outputTokens: 3 } });

    const response = await h.post(STREAM, userSays('Hi'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    expect(response.headers.get('x-accel-buffering')).toBe('no');

    const frames = await readFrames(response);
    const runId = eventsOf(frames)[0].runId;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    expect(frames).toEqual([
      frame({ type: 'start', runId }),
      frame({ type: 'step-start', payload: { stepType: 'initial' }, runId }),
      frame({ type: 'text', text: 'Hel', runId }),
      frame({ type: 'text', text: 'lo', runId }),
      frame({ type: 'text', text: ' there', runId }),
      frame({ type: 'step-finish', payload: { stepType: 'initial', finishReason: 'stop' }, runId }),
      frame({ type: 'run-finish', payload: { finishReason: 'stop' }, runId }),
    ]);
  });

  it('streams a tool run in SPEC order, with deltas that concatenate to the args JSON', async () => {
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] }, { text: ['Mild', ' in Paris.'] });

    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Weather in Paris?'))));

    expect(new Set(events.map((e) => e.runId)).size).toBe(1);
    expect(events.map((e) => e.type)).toEqual(toolThenTextOrder(events, 2));
    const deltas = events.filter((e) => e.type === 'tool-call-delta');
    expect(deltas.length).toBeGreaterThan(1);
    expect(JSON.parse(deltas.map((e) => e.payload.argsTextDelta).join(''))).toEqual({ location: 'Paris' });
    for (const delta of deltas) expect(delta.payload).toMatchObject({ toolCallId: 'call_1', toolName: 'weatherTool' });

    const byType = (type: string) => events.filter((e) => e.type === type);
    expect(byType('tool-call-input-streaming-start')[0].payload).toEqual({ toolCallId: 'call_1', toolName: 'weatherTool' });
    expect(byType('tool-call-input-streaming-end')[0].payload).toEqual({ toolCallId: 'call_1' });
    expect(byType('tool-call')[0].payload).toEqual({ toolCallId: 'call_1', toolName: 'weatherTool', args: { location: 'Paris' }, providerMetadata: {} });
    expect(byType('tool-result')[0].payload).toEqual({ toolCallId: 'call_1', toolName: 'weatherTool', result: PARIS_WEATHER });
    expect(byType('step-start').map((e) => e.payload)).toEqual([{ stepType: 'initial' }, { stepType: 'tool_execution' }]);
    expect(byType('step-finish').map((e) => e.payload)).toEqual([
      { stepType: 'initial', finishReason: 'tool_calls' },
      { stepType: 'tool_execution', finishReason: 'stop' },
    ]);
    expect(events.at(-1)).toEqual({ type: 'run-finish', payload: { finishReason: 'stop' }, runId: events[0].runId });
  });

  it("streams a tool call whose id an earlier call of the thread had under an id of its own, with its own result", async () => {
    const thread = { threadId: 'same-ids-stream', resourceId: 'traveller' };
    h.model.script({ toolCalls: [{ id: 'call_1', name: 'weatherTool', args: { location: 'Paris' } }] }, { text: 'Mild in Paris.' });
    await readFrames(await h.post(STREAM, { ...userSays('Weather in Paris?'), ...thread }));
    h.model.script({ toolCalls: [{ id: 'call_1', name: 'weatherTool', args: { location: 'Varanasi' } }] }, { text: 'Hot in Varanasi.' });
    const events = eventsOf(await readFrames(await h.post(STREAM, { ...userSays('And in Varanasi?'), ...thread })));

    const toolEvents = events.filter((e) => e.type.startsWith('tool-'));
    const ids = new Set(toolEvents.map((e) => e.payload.toolCallId));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^call_1_[0-9a-f]{8}$/);
    expect(toolEvents.find((e) => e.type === 'tool-result').payload.result.location).toMatch(/^Varanasi/);
  });

  it('reports a failed tool as a tool-result with isError, and the run goes on', async () => {
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Atlantis' } }] }, { text: 'I could not find Atlantis.' });
    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Weather in Atlantis?'))));
    const result = events.find((e) => e.type === 'tool-result');
    expect(result.payload).toEqual({
      toolCallId: 'call_1',
      toolName: 'weatherTool',
      result: { error: expect.stringContaining('Atlantis') },
      isError: true,
    });
    expect(events.at(-1).type).toBe('run-finish');
  });

  it('reports arguments that do not fit the tool as a failed tool-result', async () => {
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: { place: 'Paris' } }] }, { text: 'Which city?' });
    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Weather?'))));
    expect(events.find((e) => e.type === 'tool-result').payload).toEqual({
      toolCallId: 'call_1',
      toolName: 'weatherTool',
      result: { error: expect.stringMatching(/^Tool input validation failed for weatherTool/) },
      isError: true,
    });
    expect(events.at(-1).type).toBe('run-finish');
  });

  it('is live: the client has chunk 1 before the model sends chunk 2', async () => {
    const clientSawChunk1 = deferred();
    h.model.script({ text: ['chunk 1', 'chunk 2'] });
    h.model.beforeChunk = (index) => (index === 1 ? clientSawChunk1.promise : undefined);

    const response = await h.post(STREAM, userSays('Hi'));
    const texts: string[] = [];
    for await (const raw of sseFrames(response)) {
      const [event] = eventsOf([raw]);
      if (event?.type !== 'text') continue;
      texts.push(event.text);
      // Chunk 2 is held back until this line runs: a buffering server would never get here.
      if (event.text === 'chunk 1') clientSawChunk1.resolve();
    }
    expect(texts).toEqual(['chunk 1', 'chunk 2']);
  });

  it.each(['eos_token', 'tool_calls'])("takes a compatible server's finish reason %s on a reply without tool calls as its end", async (serverReason) => {
    h.model.script({ text: ['Hi', ' there.'], finishReason: serverReason });
    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Hi'))));
    expect(events.map((e) => e.type)).toEqual(['start', 'step-start', 'text', 'text', 'step-finish', 'run-finish']);
    expect(events.at(-1)).toMatchObject({ payload: { finishReason: 'stop' } });
    expect(h.model.requests).toHaveLength(1);
  });

  it.each(['eos_token', 'stop'])('takes a tool step a server ends with %s as ended for its tools: the answer step follows', async (serverReason) => {
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }], finishReason: serverReason }, { text: 'Mild in Paris.', finishReason: 'eos_token' });
    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Weather in Paris?'))));
    expect(events.filter((e) => e.type === 'step-finish').map((e) => e.payload.finishReason)).toEqual(['tool_calls', 'stop']);
    expect(events.at(-1)).toMatchObject({ type: 'run-finish', payload: { finishReason: 'stop' } });
    expect(h.model.requests).toHaveLength(2);
  });

  it('answers a bad body with a JSON 400 before any stream starts', async () => {
    const response = await h.post(STREAM, { messages: [{ role: 'robot', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toMatchObject({ code: 'INVALID_REQUEST', error: expect.stringContaining('messages.0.role') });
    expect(h.model.requests).toHaveLength(0);
  });
});

describe('POST /stream: failures end with one error event', () => {
  function expectCleanError(events: any[], code: string) {
    const last = events.at(-1);
    expect(last).toEqual({ type: 'error', error: { message: expect.any(String), code }, runId: events[0].runId });
    expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    expect(last.error.message).not.toMatch(/\/|\bat\b.*:\d+/);
    // The stream answered 200 before it failed: the failure has its log line all the same.
    expect(h.loggedErrors().filter((message) => message === 'request failed')).toHaveLength(1);
  }

  it('a model error before the first token', async () => {
    h.model.script({ error: { status: 500, message: 'upstream exploded at /srv/model.py:12' } });
    const response = await h.post(STREAM, userSays('Hi'));
    expect(response.status).toBe(200);
    const events = eventsOf(await readFrames(response));
    expectCleanError(events, 'MODEL_ERROR');
    expect(events.at(-1).error.message).toBe('The language model request failed (upstream status 500).');
  });

  it('a connection cut mid-stream', async () => {
    h.model.script({ text: ['Hel', 'lo', ' there'], cutAfter: 2 });
    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Hi'))));
    expect(events.filter((e) => e.type === 'text').map((e) => e.text)).toEqual(['Hel', 'lo']);
    expectCleanError(events, 'MODEL_ERROR');
    expect(events.at(-1).error.message).toBe("The model's response ended before the reply was complete.");
  });

  it('a stream that ends without a finish reason', async () => {
    h.model.script({ text: ['Hel', 'lo', ' there'], endAfter: 1 });
    const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Hi'))));
    expect(events.filter((e) => e.type === 'text').map((e) => e.text)).toEqual(['Hel']);
    expectCleanError(events, 'MODEL_ERROR');
    expect(events.at(-1).error.message).toBe("The model's response ended before the reply was complete.");
    expect(h.model.requests).toHaveLength(1);
  });
});

describe('POST /stream: memory and clients', () => {
  it('saves a streamed turn to the thread like a generated one', async () => {
    const conversation = { threadId: 'stream-thread', resourceId: 'ada' };
    h.model.script({ text: ['Nice to meet', ' you, Ada.'] }, { text: 'You are Ada.' });

    await readFrames(await h.post(STREAM, { ...userSays('I am Ada.'), ...conversation }));
    const response = await h.post(GENERATE, { ...userSays('Who am I?'), ...conversation });

    expect(response.status).toBe(200);
    expect(conversationOf(h.model.requests[1])).toEqual([
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: 'Who am I?' },
    ]);
  });

  it('aborts the model request when the client disconnects, and keeps the user message and the partial reply', async () => {
    const conversation = { threadId: 'abort-thread', resourceId: 'ada' };
    h.model.script({ text: ['Once upon', ' a time'], hang: true }, { text: 'ok' });

    const response = await h.post(STREAM, { ...userSays('Tell me a long story.'), ...conversation });
    // Leaving the loop cancels the response body: the client hangs up.
    for await (const raw of sseFrames(response)) {
      if (eventsOf([raw])[0]?.text === ' a time') break;
    }
    await h.model.requests[0].aborted;
    expect(h.model.requests[0].wasAborted).toBe(true);

    await h.post(GENERATE, { ...userSays('Go on.'), ...conversation });
    expect(conversationOf(h.model.requests[1])).toEqual([
      { role: 'user', content: 'Tell me a long story.' },
      { role: 'assistant', content: 'Once upon a time' },
      { role: 'user', content: 'Go on.' },
    ]);
  });

  it('loses no stored history when the model fails mid-stream, and stores it before the thread goes on', async () => {
    const conversation = { threadId: 'fault-thread', resourceId: 'ada' };
    h.model.script({ text: 'Hello Ada.' }, { text: ['Hel', 'lo'], cutAfter: 1 }, { text: 'ok' });
    // A slow store: a turn that let its thread go before its writes landed would show here.
    const memory = await h.memoryStore();
    const saveMessages = memory.saveMessages.bind(memory);
    memory.saveMessages = async (args) => {
      await new Promise((resolve) => setTimeout(resolve, 100));
      return saveMessages(args);
    };
    onTestFinished(() => {
      memory.saveMessages = saveMessages;
    });

    await h.post(GENERATE, { ...userSays('I am Ada.'), ...conversation });
    // The next turn is sent while the failing one runs, so it waits for the thread.
    const gate = deferred();
    h.model.beforeReply = () => (h.model.requests.length === 2 ? gate.promise : undefined);
    const failing = h.post(STREAM, { ...userSays('Still there?'), ...conversation });
    await vi.waitFor(() => expect(h.model.requests).toHaveLength(2));
    const next = h.post(GENERATE, { ...userSays('Hello?'), ...conversation });
    gate.resolve();
    const events = eventsOf(await readFrames(await failing));
    expect(events.at(-1).type).toBe('error');
    expect((await next).status).toBe(200);

    expect(conversationOf(h.model.requests[2])).toEqual([
      { role: 'user', content: 'I am Ada.' },
      { role: 'assistant', content: 'Hello Ada.' },
      { role: 'user', content: 'Still there?' },
      { role: 'assistant', content: 'Hel' },
      { role: 'user', content: 'Hello?' },
    ]);
    expect(await storedMessages(await h.store(), conversation.threadId)).toEqual([
      ['user', 'I am Ada.'],
      ['assistant', 'Hello Ada.'],
      ['user', 'Still there?'],
      ['assistant', 'Hel', 'interrupted'],
      ['user', 'Hello?'],
      ['assistant', 'ok'],
    ]);
  });

  it('stores a reply cut off after its tool step as one interrupted message, as a finished one is stored', async () => {
    const conversation = { threadId: 'tool-then-cut', resourceId: 'ada' };
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] }, { text: ['Mild ', 'in '], hang: true }, { text: 'ok' });
    const response = await h.post(STREAM, { ...userSays('Weather in Paris?'), ...conversation });
    for await (const raw of sseFrames(response)) {
      if (eventsOf([raw])[0]?.text === 'in ') break;
    }
    await h.model.requests[1].aborted;
    await h.post(GENERATE, { ...userSays('Go on.'), ...conversation });

    const page = await (await h.get(`/threads/${conversation.threadId}/messages?resourceId=ada`)).json();
    expect(page.messages.map((m: Record<string, unknown>) => [m.role, m.content, m.interrupted ?? false])).toEqual([
      ['user', 'Weather in Paris?', false],
      ['assistant', 'Mild in ', true],
      ['user', 'Go on.', false],
      ['assistant', 'ok', false],
    ]);
    // The next turn saw the call, its result and the words so far.
    expect(conversationOf(h.model.requests[2]).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
  });

  it('gives Studio the native chunk protocol', async () => {
    h.model.script({ text: ['Hel', 'lo'] });
    const response = await h.post(STREAM, userSays('Hi'), { 'x-mastra-client-type': 'studio' });
    const frames = await readFrames(response);
    expect(frames.at(-1)).toBe('data: [DONE]\n\n');
    const events = eventsOf(frames.slice(0, -1));
    expect(events.map((e) => e.type)).toContain('text-delta');
    expect(events.find((e) => e.type === 'text-delta')).toMatchObject({ payload: { text: 'Hel' } });
  });

  it('streams to @mastra/client-js through processDataStream', async () => {
    h.model.script({ text: ['Hel', 'lo'] });
    const client = new MastraClient({ baseUrl: h.baseUrl, fetch: h.fetch, headers: { 'x-mastra-client-type': 'client-js' } });
    const response = await client.getAgent('companionAgent').stream('Hi');
    const texts: string[] = [];
    await response.processDataStream({
      onChunk: async (chunk) => {
        if (chunk.type === 'text-delta') texts.push(chunk.payload.text);
      },
    });
    expect(texts.join('')).toBe('Hello');
  });
});
