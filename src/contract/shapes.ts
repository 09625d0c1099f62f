/**
 * @module The small SPEC shapes the generate response and the stream events
 * share: usage, finish reasons, step types, tool calls and results, and the
 * conversation ids. Each is a zod schema (what OpenAPI documents and tests
 * parse against) next to the function that makes it from Mastra's value.
 */
import { z } from 'zod';
import type { LanguageModelUsage, ToolCallPayload, ToolResultPayload } from '@mastra/core/stream';

export const usageSchema = z.object({
  inputTokens: z.number().describe('Input tokens processed'),
  outputTokens: z.number().describe('Output tokens generated'),
  totalTokens: z.number().describe('Input plus output'),
  reasoningTokens: z.number().optional().describe('Tokens used for reasoning, if applicable'),
  cachedInputTokens: z.number().optional().describe('Cached input tokens'),
});

export type SpecUsage = z.infer<typeof usageSchema>;

/** Mastra's usage without its provider-specific `raw` block; missing counts are 0. */
export function toSpecUsage(usage: Partial<LanguageModelUsage> | undefined): SpecUsage {
  const inputTokens = usage?.inputTokens ?? 0;
  const outputTokens = usage?.outputTokens ?? 0;
  const spec: SpecUsage = { inputTokens, outputTokens, totalTokens: usage?.totalTokens ?? inputTokens + outputTokens };
  if (usage?.reasoningTokens !== undefined) spec.reasoningTokens = usage.reasoningTokens;
  if (usage?.cachedInputTokens !== undefined) spec.cachedInputTokens = usage.cachedInputTokens;
  return spec;
}

export function addUsage(a: SpecUsage, b: SpecUsage): SpecUsage {
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  return toSpecUsage({
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    reasoningTokens: sum(a.reasoningTokens, b.reasoningTokens),
    cachedInputTokens: sum(a.cachedInputTokens, b.cachedInputTokens),
  });
}

/** The AI SDK's finish reasons (plus Mastra's two) in SPEC's snake_case. */
const FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'error', 'other', 'unknown', 'tripwire', 'retry'] as const;

export const finishReasonSchema = z
  .enum(FINISH_REASONS)
  .describe('stop: normal completion; length: truncated by length limits; tool_calls: ended due to tool usage');

export type SpecFinishReason = (typeof FINISH_REASONS)[number];

/** AI SDK reasons are kebab-case (`tool-calls`); SPEC's are snake_case (`tool_calls`). A reason we do not know is `other`. */
export function toSpecFinishReason(reason: string | undefined): SpecFinishReason {
  const snake = (reason ?? 'unknown').replaceAll('-', '_');
  return (FINISH_REASONS as readonly string[]).includes(snake) ? (snake as SpecFinishReason) : 'other';
}

export const stepTypeSchema = z
  .enum(['initial', 'tool_execution'])
  .describe('initial: the first step of a run; tool_execution: a step that follows a round of tool calls');

export type SpecStepType = z.infer<typeof stepTypeSchema>;

/**
 * The one step-type rule, for /generate and /stream alike: a run's first step
 * is `initial`; a further step only ever starts because the step before it
 * called tools, so it is `tool_execution` (Mastra's own `stepType` is
 * positional in the same way: `initial`, then `tool-result`).
 */
export function specStepType(stepIndex: number): SpecStepType {
  return stepIndex === 0 ? 'initial' : 'tool_execution';
}

export const toolCallSchema = z.object({
  toolCallId: z.string().describe('Identifier of the call'),
  toolName: z.string().describe('For example weatherTool'),
  args: z.record(z.string(), z.unknown()).describe('Arguments; for weatherTool: location (string)'),
  providerMetadata: z.record(z.string(), z.unknown()).describe('The provider\'s metadata of the call; {} when it gave none'),
});

export type SpecToolCall = z.infer<typeof toolCallSchema>;

export const toolResultSchema = z.object({
  toolCallId: z.string().describe('Matches the call'),
  toolName: z.string(),
  result: z
    .unknown()
    .describe('For weatherTool: temperature, feelsLike, humidity, windSpeed, windGust (numbers), conditions, location (strings)'),
  isError: z.literal(true).optional().describe('Present when the tool failed: result is then {error}, the message the model was given'),
});

export type SpecToolResult = z.infer<typeof toolResultSchema>;

export function toSpecToolCall(payload: ToolCallPayload): SpecToolCall {
  return { toolCallId: payload.toolCallId, toolName: payload.toolName, args: argsOf(payload.args), providerMetadata: payload.providerMetadata ?? {} };
}

export function toSpecToolResult(payload: Pick<ToolResultPayload, 'toolCallId' | 'toolName' | 'result'>): SpecToolResult {
  const invalidInput = inputValidationFailure(payload.result);
  if (invalidInput !== undefined) return toSpecToolFailure(payload, invalidInput);
  return { toolCallId: payload.toolCallId, toolName: payload.toolName, result: payload.result };
}

/** A failed tool call: `message` is what the model was told. */
export function toSpecToolFailure(call: Pick<ToolResultPayload, 'toolCallId' | 'toolName'>, message: string): SpecToolResult {
  return { toolCallId: call.toolCallId, toolName: call.toolName, result: { error: message }, isError: true };
}

/**
 * Mastra answers arguments that fail a tool's input schema with a result, not an error:
 * `{error: true, message, validationErrors}`. The tool never ran; for the client it failed.
 */
function inputValidationFailure(result: unknown): string | undefined {
  if (!result || typeof result !== 'object') return undefined;
  const { error, message, validationErrors } = result as Record<string, unknown>;
  return error === true && typeof message === 'string' && validationErrors !== undefined ? message : undefined;
}

function argsOf(args: unknown): Record<string, unknown> {
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

/** Where a stored turn lives: the thread and its owner. A stateless turn has none. */
export interface ConversationIds {
  threadId: string;
  resourceId: string;
}
