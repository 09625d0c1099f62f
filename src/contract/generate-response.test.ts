import type { FullOutput } from '@mastra/core/stream';
import { describe, expect, it } from 'vitest';
import { generateResponseSchema, toGenerateResponse, type GenerateResponse } from './generate-response.ts';

const TRACE = 'trace-1';
const CALL = { toolCallId: 'call_1', toolName: 'weatherTool', args: { location: 'Paris' } };
const WEATHER = { temperature: 17.3, conditions: 'Partly cloudy', location: 'Paris, France' };
const toolCall = { type: 'tool-call', runId: 'r', from: 'AGENT', payload: CALL };
const toolResult = { type: 'tool-result', runId: 'r', from: 'AGENT', payload: { ...CALL, result: WEATHER } };

const chatBody = (extra: object = {}) =>
  JSON.stringify({
    model: 'm',
    messages: [
      { role: 'system', content: 'You are the Friend' },
      { role: 'user', content: 'Weather in Paris?' },
    ],
    tools: [{ type: 'function', function: { name: 'weatherTool', parameters: { type: 'object' } } }],
    ...extra,
  });

function modelResponse(id: string, text?: string) {
  return {
    id,
    timestamp: new Date('2025-06-21T12:00:00Z'),
    modelId: 'stand-in-model',
    headers: {
      'content-type': 'application/json',
      'set-cookie': 'session=secret',
      'openai-organization': 'org-of-the-key',
      'openai-project': 'proj_of_the_key',
      'x-ratelimit-remaining-requests': '4999',
      'x-request-id': 'req-1',
    },
    messages: [],
    uiMessages: text
      ? [{ id: 'ui-1', role: 'assistant', metadata: { createdAt: new Date('2025-06-21T12:00:01Z') }, parts: [{ type: 'text', text }] }]
      : [],
  };
}

/** What `agent.generate()` answers for a tool round followed by a text step (only the fields the mapper reads). */
function toolRun(): FullOutput<undefined> {
  const steps = [
    {
      stepType: 'initial',
      toolCalls: [toolCall],
      toolResults: [toolResult],
      staticToolCalls: [toolCall],
      staticToolResults: [toolResult],
      dynamicToolCalls: [],
      dynamicToolResults: [],
      content: [{ type: 'tool-call', toolCallId: 'call_1' }],
      text: '',
      finishReason: 'tool-calls',
      usage: { inputTokens: 20, outputTokens: 6, totalTokens: 26, raw: { secret: true } },
      request: { body: chatBody() },
      response: modelResponse('resp-1'),
    },
    {
      stepType: 'tool-result',
      toolCalls: [],
      toolResults: [],
      content: [{ type: 'text', text: 'Mild in Paris.' }],
      text: 'Mild in Paris.',
      finishReason: 'stop',
      usage: { inputTokens: 40, outputTokens: 12, totalTokens: 52, reasoningTokens: 0, cachedInputTokens: 8 },
      request: { body: chatBody() },
      response: modelResponse('resp-2', 'Mild in Paris.'),
    },
  ];
  return {
    text: 'Mild in Paris.',
    usage: steps[1]!.usage,
    totalUsage: { inputTokens: 60, outputTokens: 18, totalTokens: 78 },
    steps,
    finishReason: 'stop',
    toolCalls: [toolCall],
    toolResults: [toolResult],
    response: modelResponse('resp-2', 'Mild in Paris.'),
  } as unknown as FullOutput<undefined>;
}

/** The mapper's output must be exactly what the contract schema allows: nothing missing, nothing extra. */
function conforms(response: GenerateResponse) {
  expect(generateResponseSchema.parse(response)).toEqual(response);
  return response;
}

describe('toGenerateResponse', () => {
  it('flattens tool calls and results, with SPEC step types and snake_case finish reasons', () => {
    const body = conforms(toGenerateResponse(toolRun(), undefined, TRACE));

    expect(body.text).toBe('Mild in Paris.');
    expect(body.finishReason).toBe('stop');
    expect(body.toolCalls).toEqual([{ ...CALL, providerMetadata: {} }]);
    expect(body.toolResults).toEqual([{ toolCallId: 'call_1', toolName: 'weatherTool', result: WEATHER }]);
    expect(body.steps.map((s) => [s.stepType, s.finishReason])).toEqual([
      ['initial', 'tool_calls'],
      ['tool_execution', 'stop'],
    ]);
    expect(body.steps[0]!.toolCalls).toEqual(body.toolCalls);
    expect(body.steps[0]!.staticToolResults).toEqual(body.toolResults);
    expect(body.steps[1]!.content).toEqual([{ type: 'text', text: 'Mild in Paris.' }]);
    expect(body.steps[0]!.content).toEqual([]);
    expect(body.traceId).toBe(TRACE);
    expect(body.steps.map((s) => s.traceId)).toEqual([TRACE, TRACE]);
  });

  it('lists a failed tool call with the error the model was told, and a refused argument list as failed too', () => {
    const failing = { ...CALL, toolCallId: 'call_2', args: { location: 'Atlantis' } };
    const invalid = { ...CALL, toolCallId: 'call_3', args: { place: 'x' } };
    const refusal = { error: true, message: 'Tool input validation failed for weatherTool.', validationErrors: { fields: {} } };
    const run = toolRun() as unknown as { steps: Array<Record<string, unknown>>; response: { messages: unknown[] } };
    run.steps[0]!.toolCalls = [toolCall, { ...toolCall, payload: failing }, { ...toolCall, payload: invalid }];
    run.steps[0]!.toolResults = [toolResult, { ...toolResult, payload: { ...invalid, result: refusal } }];
    const toolMessage = (toolCallId: string, output: object) => ({ role: 'tool', content: [{ type: 'tool-result', toolCallId, toolName: 'weatherTool', output }] });
    run.response.messages = [
      toolMessage('call_1', { type: 'json', value: WEATHER }),
      toolMessage('call_2', { type: 'error-text', value: 'Location "Atlantis" was not found' }),
    ];

    const body = conforms(toGenerateResponse(run as unknown as FullOutput<undefined>, undefined, TRACE));
    const failed = (toolCallId: string, error: string) => ({ toolCallId, toolName: 'weatherTool', result: { error }, isError: true });
    const results = [
      { toolCallId: 'call_1', toolName: 'weatherTool', result: WEATHER },
      failed('call_2', 'Location "Atlantis" was not found'),
      failed('call_3', 'Tool input validation failed for weatherTool.'),
    ];
    // The step's own list and the run's flat one, each checked: the flat one is built from the steps'.
    expect(body.steps[0]!.toolResults).toEqual(results);
    expect(body.toolResults).toEqual(results);
  });

  it('sorts tool calls and results into static and dynamic as the AI SDK does', () => {
    const dynamicCall = { ...CALL, toolCallId: 'call_2', toolName: 'mcpTool', dynamic: true };
    const run = toolRun() as unknown as { steps: Array<Record<string, unknown>> };
    run.steps[0] = { ...run.steps[0], staticToolCalls: [], staticToolResults: [] };
    run.steps[0]!.toolCalls = [toolCall, { ...toolCall, payload: dynamicCall }];
    run.steps[0]!.toolResults = [toolResult, { ...toolResult, payload: { ...dynamicCall, result: 'ok' } }];

    const [step] = conforms(toGenerateResponse(run as unknown as FullOutput<undefined>, undefined, TRACE)).steps;
    expect(step!.staticToolCalls.map((call) => call.toolCallId)).toEqual(['call_1']);
    expect(step!.dynamicToolCalls.map((call) => call.toolCallId)).toEqual(['call_2']);
    expect(step!.staticToolResults.map((result) => result.toolCallId)).toEqual(['call_1']);
    expect(step!.dynamicToolResults.map((result) => result.toolCallId)).toEqual(['call_2']);
  });

  it('reports usage without provider internals, and a running total per step', () => {
    const body = toGenerateResponse(toolRun(), undefined, TRACE);
    expect(body.steps[0]!.usage).toEqual({ inputTokens: 20, outputTokens: 6, totalTokens: 26 });
    expect(body.steps[1]!.totalUsage).toEqual({ inputTokens: 60, outputTokens: 18, totalTokens: 78, reasoningTokens: 0, cachedInputTokens: 8 });
    expect(body.usage).toEqual({ inputTokens: 40, outputTokens: 12, totalTokens: 52, reasoningTokens: 0, cachedInputTokens: 8 });
    expect(body.totalUsage).toEqual({ inputTokens: 60, outputTokens: 18, totalTokens: 78 });
  });

  it('redacts the system prompt and tool schemas of the model request', () => {
    const body = toGenerateResponse(toolRun(), undefined, TRACE);
    expect(body.request.body).toEqual({
      model: 'm',
      messages: [
        { role: 'system', content: '[redacted]' },
        { role: 'user', content: 'Weather in Paris?' },
      ],
      tools: [{ type: 'function', name: 'weatherTool', schema: '[redacted]' }],
    });
    expect(JSON.stringify(body)).not.toContain('You are the Friend');
  });

  it('drops upstream cookies and gives ISO timestamps', () => {
    const { response } = toGenerateResponse(toolRun(), undefined, TRACE);
    expect(response.headers).toEqual({ 'content-type': 'application/json', 'x-request-id': 'req-1' });
    expect(response.timestamp).toBe('2025-06-21T12:00:00.000Z');
    expect(response.uiMessages[0]!.metadata.createdAt).toBe('2025-06-21T12:00:01.000Z');
  });

  it('puts the conversation ids on every UI message of a stored turn, and none on a stateless one', () => {
    const ids = { threadId: 't-1', resourceId: 'ada' };
    const stored = conforms(toGenerateResponse(toolRun(), ids, TRACE));
    expect(stored.response.uiMessages[0]!.metadata).toEqual({ createdAt: '2025-06-21T12:00:01.000Z', ...ids });
    expect(stored.steps[1]!.response.uiMessages[0]!.metadata).toMatchObject(ids);
    const stateless = toGenerateResponse(toolRun(), undefined, TRACE);
    expect(stateless.response.uiMessages[0]!.metadata).not.toHaveProperty('threadId');
  });

  it('reports a tripwire with its reason, and none as false', () => {
    const blocked = { ...toolRun(), tripwire: { reason: 'Off-topic' } } as FullOutput<undefined>;
    expect(conforms(toGenerateResponse(blocked, undefined, TRACE))).toMatchObject({ tripwire: true, tripwireReason: 'Off-topic' });
    const clean = toGenerateResponse(toolRun(), undefined, TRACE);
    expect(clean.tripwire).toBe(false);
    expect(clean).not.toHaveProperty('tripwireReason');
  });

  it('fills every SPEC field of a bare result with its empty value', () => {
    const bare = { text: 'Hi', steps: [], finishReason: 'length' } as unknown as FullOutput<undefined>;
    expect(conforms(toGenerateResponse(bare, undefined, TRACE))).toMatchObject({
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      finishReason: 'length',
      steps: [],
      request: { body: {} },
      response: { id: '', modelId: '', headers: {}, messages: [], uiMessages: [] },
    });
  });
});
