/**
 * @module SPEC's stream events: the discriminated union on `type` (documented
 * in OpenAPI, parsed in tests) and the mapper from Mastra's native chunks, one
 * chunk at a time. Chunks SPEC has no event for (`text-start`, `text-end`,
 * reasoning, raw provider chunks) are dropped; the large native payloads
 * (request bodies, headers, messages) never leave the service.
 */
import { z } from 'zod';
import type { ChunkType } from '@mastra/core/stream';
import { ERROR_CODES, type ApiError } from './errors.ts';
import {
  finishReasonSchema,
  specStepType,
  stepTypeSchema,
  toolCallSchema,
  toolResultSchema,
  toSpecFinishReason,
  toSpecToolCall,
  toSpecToolFailure,
  toSpecToolResult,
} from './shapes.ts';

const runId = z.string().describe('The run every event of one stream belongs to');

const event = <T extends string, S extends z.ZodRawShape>(type: T, description: string, shape: S) =>
  z.object({ type: z.literal(type), ...shape, runId }).describe(description);

export const streamEventSchema = z.discriminatedUnion('type', [
  event('start', 'Run initialization', {}),
  event('step-start', 'Beginning of a processing step', { payload: z.object({ stepType: stepTypeSchema }) }),
  event('text', 'Incremental text chunk', { text: z.string() }),
  event('tool-call-input-streaming-start', 'Tool call parameter building starts', {
    payload: toolCallSchema.pick({ toolCallId: true, toolName: true }),
  }),
  event('tool-call-delta', 'Incremental piece of the argument text (JSON text fragment)', {
    payload: z.object({ argsTextDelta: z.string(), toolCallId: z.string(), toolName: z.string().optional() }),
  }),
  event('tool-call-input-streaming-end', 'Parameter building complete', {
    payload: toolCallSchema.pick({ toolCallId: true }),
  }),
  event('tool-call', 'Complete tool call', {
    payload: toolCallSchema,
  }),
  event('tool-result', 'Tool execution result; a failed tool has isError true and result {error}', {
    payload: toolResultSchema,
  }),
  event('step-finish', 'Step completion', { payload: z.object({ stepType: stepTypeSchema, finishReason: finishReasonSchema }) }),
  event('run-finish', 'Entire run completion', { payload: z.object({ finishReason: finishReasonSchema }) }),
  event('error', 'Error during processing; always the last event of its stream', {
    error: z.object({ message: z.string(), code: z.enum(ERROR_CODES) }),
  }),
]);

export type SpecEvent = z.infer<typeof streamEventSchema>;
type EventOf<T extends SpecEvent['type']> = Extract<SpecEvent, { type: T }>;

/** Finish reasons after which a step ended as the model meant it to; anything else is a broken upstream stream. */
const COMPLETE_FINISH_REASONS = new Set(['stop', 'length', 'tool-calls', 'content-filter']);

export type MappedChunk =
  | { kind: 'event'; event: SpecEvent }
  | { kind: 'skip' }
  /** The run failed: the caller sends an `error` event built from `error` and ends the stream. */
  | { kind: 'failure'; error: unknown }
  /** The step ended without a finish reason: the model's stream was cut off. */
  | { kind: 'cut-off' };

const SKIP: MappedChunk = { kind: 'skip' };

export function createStreamEventMapper(runId: string) {
  let stepIndex = -1;
  const emit = <T extends SpecEvent['type']>(type: T, fields: Omit<EventOf<T>, 'type' | 'runId'>): MappedChunk => ({
    kind: 'event',
    event: { type, ...fields, runId } as SpecEvent,
  });

  return function map(chunk: ChunkType): MappedChunk {
    switch (chunk.type) {
      case 'start':
        return emit('start', {});
      case 'step-start':
        stepIndex += 1;
        return emit('step-start', { payload: { stepType: specStepType(stepIndex) } });
      case 'text-delta':
        return chunk.payload.text ? emit('text', { text: chunk.payload.text }) : SKIP;
      case 'tool-call-input-streaming-start':
        return emit('tool-call-input-streaming-start', {
          payload: { toolCallId: chunk.payload.toolCallId, toolName: chunk.payload.toolName },
        });
      case 'tool-call-delta': {
        const { argsTextDelta, toolCallId, toolName } = chunk.payload;
        return emit('tool-call-delta', { payload: { argsTextDelta, toolCallId, toolName } });
      }
      case 'tool-call-input-streaming-end':
        return emit('tool-call-input-streaming-end', { payload: { toolCallId: chunk.payload.toolCallId } });
      case 'tool-call':
        return emit('tool-call', { payload: toSpecToolCall(chunk.payload) });
      case 'tool-result':
        return emit('tool-result', { payload: toSpecToolResult(chunk.payload) });
      case 'tool-error':
        // The model is told about the failure and answers anyway, exactly as in /generate.
        return emit('tool-result', { payload: toSpecToolFailure(chunk.payload, errorMessage(chunk.payload.error)) });
      case 'step-finish': {
        const reason = chunk.payload.stepResult?.reason;
        if (!COMPLETE_FINISH_REASONS.has(reason)) return reason === 'error' ? SKIP : { kind: 'cut-off' };
        return emit('step-finish', { payload: { stepType: specStepType(stepIndex), finishReason: toSpecFinishReason(reason) } });
      }
      case 'finish':
        return emit('run-finish', { payload: { finishReason: toSpecFinishReason(chunk.payload.stepResult?.reason) } });
      case 'error':
        return { kind: 'failure', error: chunk.payload.error ?? chunk.payload };
      default:
        return SKIP;
    }
  };
}

export function errorEvent(runId: string, error: ApiError): EventOf<'error'> {
  return { type: 'error', error: { message: error.message, code: error.code }, runId };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String(error.message);
  return String(error ?? 'Tool failed');
}
