import type { ApiError } from './errors.ts';
import { toSpecFinishReason, toSpecToolCall, toSpecToolResult } from './shapes.ts';

/**
 * Maps Mastra's native stream chunks to SPEC's events, one chunk at a time.
 * Chunks SPEC has no event for (`text-start`, `text-end`, reasoning, raw
 * provider chunks) are dropped; the large native payloads (request bodies,
 * headers, messages) never leave the service.
 */
export type SpecEvent = { type: string; runId: string } & Record<string, unknown>;

export interface MastraChunk {
  type: string;
  runId?: string;
  payload?: any;
}

/** Finish reasons after which a step ended as the model meant it to; anything else is a broken upstream stream. */
const COMPLETE_FINISH_REASONS = new Set(['stop', 'length', 'tool-calls', 'content-filter']);

export type MappedChunk =
  | { kind: 'event'; event: SpecEvent }
  | { kind: 'skip' }
  /** The run failed: the caller sends an `error` event built from `error` and ends the stream. */
  | { kind: 'failure'; error: unknown }
  /** The step ended without a finish reason: the model's stream was cut off. */
  | { kind: 'cut-off' };

export function createStreamEventMapper(runId: string) {
  let stepsStarted = 0;
  const event = (type: string, fields: Record<string, unknown> = {}): MappedChunk => ({
    kind: 'event',
    event: { type, ...fields, runId },
  });
  const stepType = () => (stepsStarted <= 1 ? 'initial' : 'tool_execution');

  return function map(chunk: MastraChunk): MappedChunk {
    const p = chunk.payload ?? {};
    switch (chunk.type) {
      case 'start':
        return event('start');
      case 'step-start':
        stepsStarted += 1;
        return event('step-start', { payload: { stepType: stepType() } });
      case 'text-delta':
        return p.text ? event('text', { text: p.text }) : { kind: 'skip' };
      case 'tool-call-input-streaming-start':
        return event('tool-call-input-streaming-start', { payload: { toolCallId: p.toolCallId, toolName: p.toolName } });
      case 'tool-call-delta':
        return event('tool-call-delta', {
          payload: { argsTextDelta: p.argsTextDelta, toolCallId: p.toolCallId, toolName: p.toolName },
        });
      case 'tool-call-input-streaming-end':
        return event('tool-call-input-streaming-end', { payload: { toolCallId: p.toolCallId } });
      case 'tool-call':
        return event('tool-call', { payload: { ...toSpecToolCall({ payload: p }), providerMetadata: p.providerMetadata ?? {} } });
      case 'tool-result':
        return event('tool-result', { payload: toSpecToolResult({ payload: p }) });
      case 'tool-error':
        // The model is told about the failure and answers anyway, exactly as in /generate.
        return event('tool-result', {
          payload: { ...toSpecToolResult({ payload: { ...p, result: { error: errorMessage(p.error) } } }), isError: true },
        });
      case 'step-finish': {
        const reason = p.stepResult?.reason;
        if (!COMPLETE_FINISH_REASONS.has(reason)) return reason === 'error' ? { kind: 'skip' } : { kind: 'cut-off' };
        return event('step-finish', { payload: { stepType: stepType(), finishReason: toSpecFinishReason(reason) } });
      }
      case 'finish':
        return event('run-finish', { payload: { finishReason: toSpecFinishReason(p.stepResult?.reason) } });
      case 'error':
        return { kind: 'failure', error: p.error ?? p };
      default:
        return { kind: 'skip' };
    }
  };
}

export function errorEvent(runId: string, error: ApiError): SpecEvent {
  return { type: 'error', error: { message: error.message, code: error.code }, runId };
}

function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (error && typeof error === 'object' && 'message' in error) return String(error.message);
  return String(error ?? 'Tool failed');
}
