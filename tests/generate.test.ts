import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { conversationOf, GENERATE, STREAM, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { PARIS_WEATHER } from './fixtures/open-meteo-stand-in.ts';

let h: AppHarness;

beforeAll(async () => {
  h = await startApp();
});
afterAll(() => h.close());
beforeEach(() => h.reset());

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /generate: replies', () => {
  it('answers a text turn in the SPEC shape', async () => {
    h.model.script({ text: 'Hello, friend!', usage: { inputTokens: 12, outputTokens: 4 } });

    const response = await h.post(GENERATE, userSays('Hi there'));
    const body = await response.json();

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body.text).toBe('Hello, friend!');
    expect(body.usage).toEqual({ inputTokens: 12, outputTokens: 4, totalTokens: 16, reasoningTokens: 0, cachedInputTokens: 0 });
    expect(body.totalUsage).toEqual(body.usage);
    expect(body.finishReason).toBe('stop');
    expect(body.toolCalls).toEqual([]);
    expect(body.toolResults).toEqual([]);
    expect(body.warnings).toEqual([]);
    expect(body.tripwire).toBe(false);
    expect(body.traceId).toMatch(UUID);
    expect(response.headers.get('x-trace-id')).toBe(body.traceId);
    expect(body.steps).toHaveLength(1);
    expect(body.steps[0]).toMatchObject({
      stepType: 'initial',
      text: 'Hello, friend!',
      finishReason: 'stop',
      content: [{ type: 'text', text: 'Hello, friend!' }],
      usage: body.usage,
      totalUsage: body.usage,
      traceId: body.traceId,
    });
    expect(body.response).toMatchObject({ modelId: 'stand-in-model' });
    expect(new Date(body.response.timestamp).toISOString()).toBe(body.response.timestamp);
    expect(body.response.uiMessages[0]).toMatchObject({ role: 'assistant', parts: expect.arrayContaining([{ type: 'text', text: 'Hello, friend!', providerMetadata: expect.anything() }]) });
    for (const key of ['reasoning', 'sources', 'files']) expect(body[key]).toEqual([]);
  });

  it('lets browser clients read the trace and thread ids', async () => {
    h.model.script({ text: 'ok' });
    const response = await h.post(GENERATE, userSays('Hi'), { origin: 'https://app.example' });
    const exposed = response.headers.get('access-control-expose-headers')!.toLowerCase().split(',');
    expect(exposed).toEqual(expect.arrayContaining(['x-trace-id', 'x-thread-id']));
  });

  it('gives every request its own trace id', async () => {
    h.model.script({ text: 'one' }, { text: 'two' });
    const first = await (await h.post(GENERATE, userSays('a'))).json();
    const second = await (await h.post(GENERATE, userSays('b'))).json();
    expect(first.traceId).toMatch(UUID);
    expect(second.traceId).toMatch(UUID);
    expect(first.traceId).not.toBe(second.traceId);
  });

  it('redacts the system prompt and tool schemas from request.body', async () => {
    h.model.script({ text: 'ok' });
    const body = await (await h.post(GENERATE, userSays('Hi'))).json();

    const sent = h.model.requests[0].body;
    expect(sent.messages[0].role).toBe('system');
    expect(sent.tools[0].function.parameters).toBeDefined();
    expect(body.request.body.model).toBe('stand-in-model');
    expect(body.request.body.messages[0]).toEqual({ role: 'system', content: '[redacted]' });
    expect(body.request.body.messages[1]).toEqual({ role: 'user', content: 'Hi' });
    expect(body.request.body.tools).toEqual([
      { type: 'function', name: 'weatherTool', schema: '[redacted]' },
      { type: 'function', name: 'spiritualDestinationsTool', schema: '[redacted]' },
    ]);
    expect(JSON.stringify(body)).not.toContain('You are the Friend');
  });

  it('reports a length-truncated reply as finishReason length', async () => {
    h.model.script({ text: 'A very long', finishReason: 'length' });
    const body = await (await h.post(GENERATE, userSays('Tell me everything'))).json();
    expect(body.finishReason).toBe('length');
    expect(body.text).toBe('A very long');
  });

  it.each([
    ['eos_token', 'stop'],
    ['eos', 'stop'],
    ['model_length', 'length'],
    // A server that says it stopped for tools without calling any has answered too.
    ['tool_calls', 'stop'],
    ['function_call', 'stop'],
  ])("takes a compatible server's own finish reason %s as %s: the reply is answered once", async (serverReason, finishReason) => {
    h.model.script({ text: 'Hi there.', finishReason: serverReason });
    const body = await (await h.post(GENERATE, userSays('Hi'))).json();
    expect(body).toMatchObject({ text: 'Hi there.', finishReason });
    expect(body.steps).toHaveLength(1);
    expect(h.model.requests).toHaveLength(1);
  });

  it('passes input_text and output_text content parts to the model, and lists a message of several parts one part a line', async () => {
    h.model.script({ text: 'ok' });
    const response = await h.post(GENERATE, {
      messages: [
        { role: 'user', content: [{ type: 'input_text', text: 'My name is Ada.' }] },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Nice to meet you, Ada.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'What is' }, { type: 'input_text', text: 'my name?' }] },
      ],
      threadId: 'parts',
      resourceId: 'ada',
    });
    expect(response.status).toBe(200);
    expect(conversationOf(h.model.requests[0])).toEqual([
      { role: 'user', content: 'My name is Ada.' },
      { role: 'assistant', content: 'Nice to meet you, Ada.' },
      { role: 'user', content: expect.stringMatching(/What is\s*my name\?/) },
    ]);
    const listed = await (await h.get('/threads/parts/messages?resourceId=ada')).json();
    expect(listed.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
      ['user', 'My name is Ada.'],
      ['assistant', 'Nice to meet you, Ada.'],
      ['user', 'What is\nmy name?'],
      ['assistant', 'ok'],
    ]);
  });

  it("passes a conversation that opens with the companion's greeting as it is: no user turn is made up before it", async () => {
    h.model.script({ text: 'Glad to hear it.' }, { text: 'Of course.' });
    const greeting = { role: 'assistant', content: 'Welcome! I am your companion.' };
    const first = await h.post(GENERATE, { messages: [greeting, { role: 'user', content: 'Thanks' }], threadId: 'greeted', resourceId: 'ada' });
    expect(first.status).toBe(200);
    expect(conversationOf(h.model.requests[0])).toEqual([greeting, { role: 'user', content: 'Thanks' }]);
    // The stored thread opens with it too: the next turn's history starts with the assistant.
    await h.post(GENERATE, { messages: [{ role: 'user', content: 'Remind me?' }], threadId: 'greeted', resourceId: 'ada' });
    expect(conversationOf(h.model.requests[1])[0]).toEqual(greeting);
  });

  it('passes a client system message after the agent instructions, which it cannot replace', async () => {
    h.model.script({ text: 'ok' });
    const response = await h.post(GENERATE, {
      messages: [
        { role: 'system', content: [{ type: 'input_text', text: 'The user prefers short answers.' }] },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(response.status).toBe(200);
    const sent = h.model.requests[0].messages;
    expect(sent[0].content.startsWith('You are the Friend')).toBe(true);
    expect(sent.filter((m) => m.role === 'system').map((m) => m.content)).toContain('The user prefers short answers.');
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'Hi' });
  });
});

describe('POST /generate: weatherTool', () => {
  it('calls Open-Meteo and returns flat tool calls and mapped results', async () => {
    h.model.script(
      { toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }], usage: { inputTokens: 20, outputTokens: 6 } },
      { text: 'It is 17.3 °C and partly cloudy in Paris.', usage: { inputTokens: 40, outputTokens: 12 } },
    );

    const response = await h.post(GENERATE, userSays('What is the weather in Paris?'));
    const body = await response.json();

    expect(response.status).toBe(200);
    expect(body.text).toBe('It is 17.3 °C and partly cloudy in Paris.');
    expect(body.toolCalls).toEqual([{ toolCallId: 'call_1', toolName: 'weatherTool', args: { location: 'Paris' }, providerMetadata: {} }]);
    expect(body.toolResults).toEqual([{ toolCallId: 'call_1', toolName: 'weatherTool', result: PARIS_WEATHER }]);
    expect(body.steps.map((s: { stepType: string; finishReason: string }) => [s.stepType, s.finishReason])).toEqual([
      ['initial', 'tool_calls'],
      ['tool_execution', 'stop'],
    ]);
    expect(body.steps[0].toolCalls).toEqual(body.toolCalls);
    expect(body.steps[0].toolResults).toEqual(body.toolResults);
    expect(body.steps[0].staticToolCalls).toEqual(body.toolCalls);
    expect(body.steps[0].staticToolResults).toEqual(body.toolResults);
    expect([body.steps[0].dynamicToolCalls, body.steps[0].dynamicToolResults]).toEqual([[], []]);
    expect(body.steps[1].totalUsage).toEqual({ inputTokens: 60, outputTokens: 18, totalTokens: 78, reasoningTokens: 0, cachedInputTokens: 0 });
    expect(body.usage).toMatchObject({ inputTokens: 60, outputTokens: 18, totalTokens: 78 });

    expect(h.weather.requests.map((r) => r.path)).toEqual(['/v1/search', '/v1/forecast']);
    expect(h.weather.requests[0].query).toMatchObject({ name: 'Paris', count: '1' });
    expect(h.weather.requests[1].query).toMatchObject({
      current: 'temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m,wind_gusts_10m,weather_code',
    });
    const toolMessage = h.model.requests[1].messages.find((m) => m.role === 'tool');
    expect(JSON.parse(toolMessage!.content)).toEqual(PARIS_WEATHER);
  });

  // Some compatible servers number tool calls per reply (call_1 every time) or send none: Mastra matches a
  // call to its result by id across the thread's remembered messages, so the second turn got the first one's weather.
  it("gives each turn's tool call its own result on a thread whose model numbers its calls per reply", async () => {
    const thread = { threadId: 'same-ids', resourceId: 'traveller' };
    h.model.script({ toolCalls: [{ id: 'call_1', name: 'weatherTool', args: { location: 'Paris' } }] }, { text: 'Mild in Paris.' });
    const paris = await (await h.post(GENERATE, { ...userSays('Weather in Paris?'), ...thread })).json();
    h.model.script({ toolCalls: [{ id: 'call_1', name: 'weatherTool', args: { location: 'Varanasi' } }] }, { text: 'Hot in Varanasi.' });
    const varanasi = await (await h.post(GENERATE, { ...userSays('And in Varanasi?'), ...thread })).json();

    expect(paris.toolResults.map((r: { result: { location: string } }) => r.result.location)).toEqual(['Paris, France']);
    expect(varanasi.toolResults.map((r: { result: { location: string } }) => r.result.location)).toEqual([expect.stringMatching(/^Varanasi/)]);
    expect(varanasi.toolCalls[0].toolCallId).not.toBe(paris.toolCalls[0].toolCallId);
    // The model is told the new result, under the id of the new call.
    const toolMessages = h.model.requests.at(-1)!.messages.filter((m) => m.role === 'tool');
    expect(JSON.parse(toolMessages.at(-1)!.content).location).toMatch(/^Varanasi/);
  });

  it('tells the model when a place is unknown, and still answers', async () => {
    h.model.script(
      { toolCalls: [{ name: 'weatherTool', args: { location: 'Atlantis' } }] },
      { text: 'I could not find Atlantis.' },
    );
    const body = await (await h.post(GENERATE, userSays('Weather in Atlantis?'))).json();
    expect(body.text).toBe('I could not find Atlantis.');
    const toolMessage = h.model.requests[1].messages.find((m) => m.role === 'tool');
    expect(toolMessage!.content).toContain('Atlantis');
    expect(toolMessage!.content).toMatch(/not found/i);
    // The client sees the failure the model was told, as /stream shows it.
    expect(body.toolResults).toEqual([
      { toolCallId: 'call_1', toolName: 'weatherTool', result: { error: 'Location "Atlantis" was not found' }, isError: true },
    ]);
    expect(body.steps[0].toolResults).toEqual(body.toolResults);
  });

  it('reports arguments that do not fit the tool as a failed call, without calling Open-Meteo', async () => {
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: { place: 'Paris' } }] }, { text: 'Which city?' });
    const body = await (await h.post(GENERATE, userSays('Weather?'))).json();
    expect(body.text).toBe('Which city?');
    expect(body.toolResults).toEqual([
      { toolCallId: 'call_1', toolName: 'weatherTool', result: { error: expect.stringMatching(/^Tool input validation failed for weatherTool/) }, isError: true },
    ]);
    expect(h.weather.requests).toHaveLength(0);
  });

  it('checks arguments that are not JSON as {} (Mastra reads them so), and shows them as {}', async () => {
    h.model.script({ toolCalls: [{ name: 'weatherTool', args: '{"location": "Par' }] }, { text: 'Which city?' });
    const body = await (await h.post(GENERATE, userSays('Weather?'))).json();
    expect(body.toolCalls).toEqual([{ toolCallId: 'call_1', toolName: 'weatherTool', args: {}, providerMetadata: {} }]);
    expect(body.toolResults).toEqual([
      { toolCallId: 'call_1', toolName: 'weatherTool', result: { error: expect.stringMatching(/^Tool input validation failed for weatherTool/) }, isError: true },
    ]);
    expect(h.weather.requests).toHaveLength(0);
  });
});

describe('POST /generate: the tools the model is offered', () => {
  /** The chat API's tool definitions of a recorded request, by name. */
  const offeredTools = (index: number) =>
    Object.fromEntries(
      (h.model.requests[index]!.body.tools as Array<{ function: { name: string; parameters: unknown } }>).map((tool) => [
        tool.function.name,
        tool.function.parameters,
      ]),
    );

  // The tools' JSON schemas are converted once and reused: every turn must still get the right set.
  it('are the same definitions on every turn, and a stateless turn gets no working-memory tool', async () => {
    const stored = { threadId: 'tools-t', resourceId: 'tools-u' };
    h.model.script({ text: 'one' }, { text: 'two' }, { text: 'three' });

    await h.post(GENERATE, { ...userSays('Hi'), ...stored });
    await h.post(GENERATE, userSays('Hi'));
    await h.post(GENERATE, { ...userSays('Again'), ...stored });

    const first = offeredTools(0);
    expect(Object.keys(first).sort()).toEqual(['spiritualDestinationsTool', 'updateWorkingMemory', 'weatherTool']);
    expect(first.weatherTool).toMatchObject({ type: 'object', properties: { location: { type: 'string' } }, required: expect.arrayContaining(['location']) });
    expect(first.updateWorkingMemory).toMatchObject({ type: 'object', properties: { memory: { type: 'string' } }, required: ['memory'] });
    expect(Object.keys(offeredTools(1)).sort()).toEqual(['spiritualDestinationsTool', 'weatherTool']);
    expect(offeredTools(1).weatherTool).toEqual(first.weatherTool);
    expect(offeredTools(2)).toEqual(first);
  });
});

describe('POST /generate: personalities', () => {
  const VOICES = { guru: 'You are the Guru', wanderer: 'You are the Wanderer', friend: 'You are the Friend', philosopher: 'You are the Philosopher' };

  function systemPrompt(index = 0) {
    return h.model.requests[index].messages[0];
  }

  it.each(Object.entries(VOICES))('sends the %s prompt from runtimeContext.metadata.personality', async (personality, voice) => {
    h.model.script({ text: 'ok' });
    const response = await h.post(GENERATE, { ...userSays('Hi'), runtimeContext: { metadata: { personality } } });
    expect(response.status).toBe(200);
    expect(systemPrompt().role).toBe('system');
    expect(systemPrompt().content.startsWith(voice)).toBe(true);
    expect(systemPrompt().content).toContain('weatherTool');
    expect(systemPrompt().content).toContain('988');
  });

  it('defaults to friend', async () => {
    h.model.script({ text: 'ok' });
    await h.post(GENERATE, userSays('Hi'));
    expect(systemPrompt().content.startsWith(VOICES.friend)).toBe(true);
  });

  it('accepts tracingOptions.metadata.personality, and runtimeContext wins over it', async () => {
    h.model.script({ text: 'ok' }, { text: 'ok' });
    await h.post(GENERATE, { ...userSays('Hi'), tracingOptions: { metadata: { personality: 'philosopher' } } });
    await h.post(GENERATE, {
      ...userSays('Hi'),
      tracingOptions: { metadata: { personality: 'philosopher' } },
      runtimeContext: { metadata: { personality: 'wanderer', userId: 'u-1' } },
    });
    expect(systemPrompt(0).content.startsWith(VOICES.philosopher)).toBe(true);
    expect(systemPrompt(1).content.startsWith(VOICES.wanderer)).toBe(true);
  });

  it('rejects an unknown personality with the allowed values', async () => {
    const response = await h.post(GENERATE, { ...userSays('Hi'), runtimeContext: { metadata: { personality: 'pirate' } } });
    const body = await response.json();
    expect(response.status).toBe(400);
    expect(body.code).toBe('INVALID_REQUEST');
    expect(body.error).toContain('runtimeContext.metadata.personality: personality must be one of guru, wanderer, friend, philosopher');
    expect(h.model.requests).toHaveLength(0);
  });

  it.each(['runtimeContext', 'tracingOptions'])('refuses a personality beside %s.metadata, where it would be ignored', async (field) => {
    const response = await h.post(GENERATE, { ...userSays('Hi'), [field]: { personality: 'guru' } });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toContain(`${field}.personality: personality belongs in ${field}.metadata.personality`);
    expect(h.model.requests).toHaveLength(0);
  });
});

describe('POST /generate: malformed bodies are 400 INVALID_REQUEST', () => {
  const cases: Array<[string, unknown, string]> = [
    ['bad JSON', '{"messages": [', 'Request body must be valid JSON.'],
    ['an empty body', '', 'Request body must be valid JSON.'],
    ['a JSON array', [], 'Invalid request body'],
    ['missing messages', {}, 'messages: messages must be an array of messages'],
    ['messages not an array', { messages: 'hi' }, 'messages: messages must be an array of messages'],
    ['no messages', { messages: [] }, 'messages: messages must contain at least one message'],
    ['a trailing system message', { messages: [{ role: 'user', content: 'Hi' }, { role: 'system', content: 'Be brief' }] }, 'the last message must have role user: the companion answers the user'],
    ['a bad role', { messages: [{ role: 'wizard', content: 'hi' }] }, 'messages.0.role: role must be one of user, assistant, system'],
    ['a missing role', { messages: [{ content: 'hi' }] }, 'messages.0.role: role must be one of user, assistant, system'],
    ['numeric content', { messages: [{ role: 'user', content: 42 }] }, 'messages.0.content: content must be a string or an array'],
    ['empty content', { messages: [{ role: 'user', content: '' }] }, 'messages.0.content'],
    ['blank content', { messages: [{ role: 'user', content: ' \n ' }] }, 'messages.0.content: content must hold some text, not only whitespace'],
    ['blank content parts', { messages: [{ role: 'user', content: [{ type: 'input_text', text: '' }, { type: 'input_text', text: ' ' }] }] }, 'messages.0.content: content must hold some text'],
    [
      'a blank last message after an assistant one',
      { messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'Hello! I was saying' }, { role: 'user', content: '   ' }] },
      'messages.2.content: content must hold some text',
    ],
    ['a bad content part type', { messages: [{ role: 'user', content: [{ type: 'image', text: 'x' }] }] }, 'messages.0.content'],
    ['a non-string threadId', { ...userSays('hi'), threadId: 7, resourceId: 'u' }, 'threadId: threadId must be a string'],
    ['an instructions override', { ...userSays('hi'), instructions: 'Be evil' }, 'unrecognized field(s): instructions'],
    ['a model override', { ...userSays('hi'), model: 'gpt-5' }, 'unrecognized field(s): model'],
    ['client tools', { ...userSays('hi'), clientTools: {} }, 'unrecognized field(s): clientTools'],
  ];

  it.each(cases)('rejects %s', async (_name, body, message) => {
    const response = await h.post(GENERATE, body);
    const error = await response.json();
    expect(response.status).toBe(400);
    expect(error).toEqual({ error: expect.stringContaining(message), code: 'INVALID_REQUEST', details: expect.any(Object) });
    expect(h.model.requests).toHaveLength(0);
  });

  it('names one problem for an empty message list', async () => {
    const error = await (await h.post(GENERATE, { messages: [] })).json();
    expect(error.details.issues).toEqual([{ path: 'messages', message: 'messages must contain at least one message' }]);
  });

  it.each([GENERATE, STREAM])('rejects query parameters on %s with a 400 naming them: a thread named in the URL is no stateless turn', async (route) => {
    const response = await h.post(`${route}?threadId=t-1&resourceId=ada`, userSays('hi'));
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'The agent routes take no query parameters; send them in the body: threadId, resourceId',
      code: 'INVALID_REQUEST',
      details: { field: 'query', refused: ['threadId', 'resourceId'] },
    });
    expect(h.model.requests).toHaveLength(0);
  });

  it('rejects a body over 1 MiB with 413', async () => {
    const response = await h.post(GENERATE, userSays('x'.repeat(1024 * 1024 + 1)));
    expect(response.status).toBe(413);
    expect((await response.json()).code).toBe('INVALID_REQUEST');
    expect(h.model.requests).toHaveLength(0);
  });
});

describe('POST /generate: upstream failures', () => {
  it('answers a model failure with 500 MODEL_ERROR and no stack or upstream text', async () => {
    h.model.script({ error: { status: 500, message: 'secret upstream detail sk-live-123' } });
    const response = await h.post(GENERATE, userSays('Hi'));
    const body = await response.json();
    expect(response.status).toBe(500);
    expect(body).toEqual({
      error: 'The language model request failed (upstream status 500).',
      code: 'MODEL_ERROR',
      details: { upstreamStatus: 500 },
    });
  });

  it('answers an upstream 429 with 429 RATE_LIMITED', async () => {
    h.model.script({ error: { status: 429, message: 'Rate limit reached', type: 'rate_limit_error' } });
    const response = await h.post(GENERATE, userSays('Hi'));
    expect(response.status).toBe(429);
    expect((await response.json()).code).toBe('RATE_LIMITED');
  });
});
