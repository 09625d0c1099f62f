import type { ChunkType } from '@mastra/core/stream';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.ts';
import { createStreamEventMapper, errorEvent, streamEventSchema, type MappedChunk } from './stream-events.ts';

const RUN = 'run-1';

/** A native chunk as Mastra's loop emits it; only the fields the mapper reads are filled in. */
function chunk(type: string, payload: Record<string, unknown> = {}): ChunkType {
  return { type, payload, runId: RUN, from: 'AGENT' } as unknown as ChunkType;
}

const stepFinish = (reason: string) => chunk('step-finish', { stepResult: { reason }, output: { usage: {} }, metadata: {} });

/** Maps a whole run and checks that every event it produces is one the contract allows. */
function mapRun(chunks: ChunkType[]): MappedChunk[] {
  const map = createStreamEventMapper(RUN);
  const mapped = chunks.map(map);
  for (const result of mapped) if (result.kind === 'event') expect(streamEventSchema.parse(result.event)).toEqual(result.event);
  return mapped;
}

const eventsOf = (mapped: MappedChunk[]) => mapped.flatMap((m) => (m.kind === 'event' ? [m.event] : []));

describe('the stream event mapper', () => {
  it('maps a tool run to SPEC events in order, with positional step types', () => {
    const toolCallId = 'call_1';
    const toolName = 'weatherTool';
    const events = eventsOf(
      mapRun([
        chunk('start'),
        chunk('step-start', { request: {} }),
        chunk('tool-call-input-streaming-start', { toolCallId, toolName }),
        chunk('tool-call-delta', { toolCallId, toolName, argsTextDelta: '{"location":' }),
        chunk('tool-call-delta', { toolCallId, toolName, argsTextDelta: '"Paris"}' }),
        chunk('tool-call-input-streaming-end', { toolCallId }),
        chunk('tool-call', { toolCallId, toolName, args: { location: 'Paris' } }),
        chunk('tool-result', { toolCallId, toolName, args: { location: 'Paris' }, result: { temperature: 17.3 } }),
        stepFinish('tool-calls'),
        chunk('step-start', { request: {} }),
        chunk('text-start', { id: 't' }),
        chunk('text-delta', { id: 't', text: 'Mild.' }),
        chunk('text-end', { id: 't' }),
        stepFinish('stop'),
        chunk('finish', { stepResult: { reason: 'stop' }, output: { usage: {} }, metadata: {}, messages: {} }),
      ]),
    );

    expect(events).toEqual([
      { type: 'start', runId: RUN },
      { type: 'step-start', payload: { stepType: 'initial' }, runId: RUN },
      { type: 'tool-call-input-streaming-start', payload: { toolCallId, toolName }, runId: RUN },
      { type: 'tool-call-delta', payload: { argsTextDelta: '{"location":', toolCallId, toolName }, runId: RUN },
      { type: 'tool-call-delta', payload: { argsTextDelta: '"Paris"}', toolCallId, toolName }, runId: RUN },
      { type: 'tool-call-input-streaming-end', payload: { toolCallId }, runId: RUN },
      { type: 'tool-call', payload: { toolCallId, toolName, args: { location: 'Paris' }, providerMetadata: {} }, runId: RUN },
      { type: 'tool-result', payload: { toolCallId, toolName, result: { temperature: 17.3 } }, runId: RUN },
      { type: 'step-finish', payload: { stepType: 'initial', finishReason: 'tool_calls' }, runId: RUN },
      { type: 'step-start', payload: { stepType: 'tool_execution' }, runId: RUN },
      { type: 'text', text: 'Mild.', runId: RUN },
      { type: 'step-finish', payload: { stepType: 'tool_execution', finishReason: 'stop' }, runId: RUN },
      { type: 'run-finish', payload: { finishReason: 'stop' }, runId: RUN },
    ]);
  });

  const CALL = { toolCallId: 'c', toolName: 'weatherTool' };
  const REFUSAL = { error: true, message: 'Tool input validation failed for weatherTool.', validationErrors: { fields: {} } };

  it.each([
    ['a tool that failed', chunk('tool-error', { ...CALL, error: new Error('Location "Atlantis" was not found') }), 'Location "Atlantis" was not found'],
    ['arguments the tool refused', chunk('tool-result', { ...CALL, result: REFUSAL }), REFUSAL.message],
  ])('reports %s as a tool-result with isError and the message the model was given', (_case, toolChunk, message) => {
    expect(mapRun([toolChunk])).toEqual([
      { kind: 'event', event: { type: 'tool-result', payload: { ...CALL, result: { error: message }, isError: true }, runId: RUN } },
    ]);
  });

  it('drops chunks SPEC has no event for, and empty text deltas', () => {
    const mapped = mapRun([chunk('text-start', { id: 't' }), chunk('text-delta', { id: 't', text: '' }), chunk('raw', {}), chunk('reasoning-delta', { id: 'r', text: 'hm' })]);
    expect(mapped.map((m) => m.kind)).toEqual(['skip', 'skip', 'skip', 'skip']);
  });

  it('turns an error chunk into a failure carrying the error', () => {
    const cause = new Error('boom');
    expect(mapRun([chunk('error', { error: cause })])).toEqual([{ kind: 'failure', error: cause }]);
  });

  it('treats a step without a finish reason as cut off, and an errored step as no event', () => {
    expect(mapRun([stepFinish('unknown'), stepFinish('other'), stepFinish('error')]).map((m) => m.kind)).toEqual(['cut-off', 'cut-off', 'skip']);
  });

  it('maps every complete finish reason to snake_case', () => {
    const reasons = mapRun(['stop', 'length', 'tool-calls', 'content-filter'].map(stepFinish));
    expect(eventsOf(reasons).map((e) => (e.type === 'step-finish' ? e.payload.finishReason : e.type))).toEqual([
      'stop',
      'length',
      'tool_calls',
      'content_filter',
    ]);
  });
});

describe('errorEvent', () => {
  it('carries the message and code of the failure, and nothing else', () => {
    const event = errorEvent(RUN, new ApiError(500, 'MODEL_ERROR', 'The model failed.', { upstreamStatus: 502 }));
    expect(event).toEqual({ type: 'error', error: { message: 'The model failed.', code: 'MODEL_ERROR' }, runId: RUN });
    expect(streamEventSchema.parse(event)).toEqual(event);
  });
});

describe('the stream event schema', () => {
  it('refuses an event of an unknown type, or one without runId', () => {
    expect(streamEventSchema.safeParse({ type: 'text-delta', text: 'x', runId: RUN }).success).toBe(false);
    expect(streamEventSchema.safeParse({ type: 'text', text: 'x' }).success).toBe(false);
  });
});
