/**
 * @module SPEC's generate response: its zod schema (documented in OpenAPI,
 * parsed in tests) and the mapper from Mastra's `FullOutput`: flat tool calls
 * and results (a failed call's too), snake_case finish reasons, SPEC step types, usage without
 * provider internals, the model request with its system prompt and tool
 * schemas redacted, and the conversation ids on every UI message.
 */
import { z } from 'zod';
import type { FullOutput, LLMStepResult } from '@mastra/core/stream';
import {
  addUsage,
  finishReasonSchema,
  specStepType,
  stepTypeSchema,
  toolCallSchema,
  toolResultSchema,
  toSpecFinishReason,
  toSpecToolCall,
  toSpecToolFailure,
  toSpecToolResult,
  toSpecUsage,
  usageSchema,
  type ConversationIds,
  type SpecUsage,
} from './shapes.ts';
import { clientModelRequest, clientResponseHeaders } from './redact.ts';

const isoTimestamp = z.iso.datetime({ offset: true }).describe('ISO 8601');
const jsonObject = z.record(z.string(), z.unknown());
const items = z.array(z.unknown());

export const uiMessageSchema = z.looseObject({
  id: z.string(),
  role: z.string(),
  metadata: z.looseObject({
    createdAt: isoTimestamp,
    threadId: z.string().optional().describe('Present for a stored conversation'),
    resourceId: z.string().optional().describe('Present for a stored conversation'),
  }),
  parts: z.array(z.looseObject({ type: z.string(), text: z.string().optional() })),
});

export const modelResponseSchema = z.object({
  id: z.string(),
  timestamp: isoTimestamp,
  modelId: z.string(),
  headers: z.record(z.string(), z.string()),
  modelMetadata: jsonObject,
  messages: items,
  uiMessages: z.array(uiMessageSchema),
});

/** The model request that produced the step; system prompt and tool schemas are `[redacted]`. */
const modelRequestSchema = z.object({ body: jsonObject });

const tripwireFields = {
  tripwire: z.boolean().describe('true when a guardrail blocked the reply'),
  tripwireReason: z.string().optional().describe('Present when tripwire is true'),
};

export const stepSchema = z.object({
  stepType: stepTypeSchema,
  sources: items,
  files: items,
  toolCalls: z.array(toolCallSchema),
  toolResults: z.array(toolResultSchema),
  content: z.array(z.object({ type: z.string(), text: z.string() })),
  text: z.string().describe('Text of this step'),
  reasoningText: z.string(),
  reasoning: items,
  staticToolCalls: z.array(toolCallSchema),
  dynamicToolCalls: z.array(toolCallSchema),
  staticToolResults: z.array(toolResultSchema),
  dynamicToolResults: z.array(toolResultSchema),
  finishReason: finishReasonSchema,
  usage: usageSchema.describe("This step's usage"),
  totalUsage: usageSchema.describe('Usage of the run up to and including this step'),
  warnings: items,
  request: modelRequestSchema,
  response: modelResponseSchema,
  providerMetadata: jsonObject,
  ...tripwireFields,
  traceId: z.string(),
});

export const generateResponseSchema = z.object({
  text: z.string().describe('Complete response text'),
  usage: usageSchema,
  steps: z.array(stepSchema).describe('Execution steps including tool calls and results'),
  finishReason: finishReasonSchema,
  warnings: items,
  providerMetadata: jsonObject,
  request: modelRequestSchema,
  reasoning: items,
  toolCalls: z.array(toolCallSchema).describe('All tool calls of the run'),
  toolResults: z.array(toolResultSchema).describe('All tool results of the run'),
  sources: items,
  files: items,
  response: modelResponseSchema,
  totalUsage: usageSchema,
  ...tripwireFields,
  traceId: z.string().describe('Unique request trace identifier for debugging; also the x-trace-id header'),
});

export type GenerateResponse = z.infer<typeof generateResponseSchema>;
export type SpecStep = z.infer<typeof stepSchema>;

/** `conversation` is the stored conversation's ids, `undefined` for a stateless turn. */
export function toGenerateResponse<OUTPUT>(
  result: FullOutput<OUTPUT>,
  conversation: ConversationIds | undefined,
  traceId: string,
): GenerateResponse {
  const lastStep = result.steps.at(-1);
  const steps = mapSteps(result.steps, toolFailuresOf(result.response?.messages ?? lastStep?.response?.messages), conversation, traceId);
  return {
    text: result.text ?? '',
    usage: toSpecUsage(result.usage),
    steps,
    finishReason: toSpecFinishReason(result.finishReason),
    warnings: result.warnings ?? [],
    providerMetadata: result.providerMetadata ?? {},
    request: clientModelRequest(lastStep?.request),
    reasoning: result.reasoning ?? [],
    toolCalls: (result.toolCalls ?? []).map((chunk) => toSpecToolCall(chunk.payload)),
    toolResults: steps.flatMap((step) => step.toolResults),
    sources: result.sources ?? [],
    files: result.files ?? [],
    response: toSpecResponse(result.response ?? lastStep?.response, conversation),
    totalUsage: toSpecUsage(result.totalUsage ?? result.usage),
    ...tripwireOf(result.tripwire),
    traceId,
  };
}

function mapSteps<OUTPUT>(
  steps: LLMStepResult<OUTPUT>[],
  toolFailures: Map<string, string>,
  conversation: ConversationIds | undefined,
  traceId: string,
): SpecStep[] {
  let runningUsage: SpecUsage = toSpecUsage(undefined);
  return steps.map((step, index) => {
    const usage = toSpecUsage(step.usage);
    runningUsage = addUsage(runningUsage, usage);
    const tools = stepTools(step, toolFailures);
    return {
      stepType: specStepType(index),
      sources: step.sources ?? [],
      files: step.files ?? [],
      toolCalls: tools.calls.map(({ call }) => call),
      toolResults: tools.results.map(({ result }) => result),
      content: (step.content ?? []).flatMap((part) => ('text' in part && typeof part.text === 'string' ? [{ type: part.type, text: part.text }] : [])),
      text: step.text ?? '',
      reasoningText: step.reasoningText ?? '',
      reasoning: step.reasoning ?? [],
      // As the AI SDK defines them (Mastra's step results leave them empty): a tool is dynamic only when it says so.
      staticToolCalls: tools.calls.filter(({ dynamic }) => !dynamic).map(({ call }) => call),
      dynamicToolCalls: tools.calls.filter(({ dynamic }) => dynamic).map(({ call }) => call),
      staticToolResults: tools.results.filter(({ dynamic }) => !dynamic).map(({ result }) => result),
      dynamicToolResults: tools.results.filter(({ dynamic }) => dynamic).map(({ result }) => result),
      finishReason: toSpecFinishReason(step.finishReason),
      usage,
      totalUsage: runningUsage,
      warnings: step.warnings ?? [],
      request: clientModelRequest(step.request),
      response: toSpecResponse(step.response, conversation),
      providerMetadata: step.providerMetadata ?? {},
      ...tripwireOf(step.tripwire),
      traceId,
    };
  });
}

/**
 * A step's tool calls, and a result for each call that has one: Mastra lists only the calls that
 * succeeded among a step's results, so a failed call's result is its error, as the model was told it.
 */
function stepTools<OUTPUT>(step: LLMStepResult<OUTPUT>, toolFailures: Map<string, string>) {
  const calls = (step.toolCalls ?? []).map(({ payload }) => ({ call: toSpecToolCall(payload), dynamic: payload.dynamic === true }));
  const succeeded = new Map((step.toolResults ?? []).map(({ payload }) => [payload.toolCallId, payload]));
  const results = calls.flatMap(({ call, dynamic }) => {
    const success = succeeded.get(call.toolCallId);
    const failure = toolFailures.get(call.toolCallId);
    if (success) return [{ result: toSpecToolResult(success), dynamic }];
    return failure === undefined ? [] : [{ result: toSpecToolFailure(call, failure), dynamic }];
  });
  return { calls, results };
}

/** The failed tool calls of a run, by call id: the error each tool message gave the model. */
function toolFailuresOf(messages: unknown[] | undefined): Map<string, string> {
  const failures = new Map<string, string>();
  for (const message of messages ?? []) {
    const { role, content } = message as { role?: unknown; content?: unknown };
    if (role !== 'tool' || !Array.isArray(content)) continue;
    for (const part of content as ToolMessagePart[]) {
      const output = part.type === 'tool-result' ? part.output : undefined;
      if (output?.type === 'error-text') failures.set(part.toolCallId, String(output.value));
      if (output?.type === 'error-json') failures.set(part.toolCallId, JSON.stringify(output.value));
    }
  }
  return failures;
}

/** The part of a tool message this mapper reads (the AI SDK's `ToolResultPart`). */
interface ToolMessagePart {
  type: string;
  toolCallId: string;
  output?: { type: string; value?: unknown };
}

function toSpecResponse<OUTPUT>(response: LLMStepResult<OUTPUT>['response'] | undefined, conversation: ConversationIds | undefined) {
  return {
    id: response?.id ?? '',
    timestamp: toIso(response?.timestamp),
    modelId: response?.modelId ?? '',
    headers: clientResponseHeaders(response?.headers ?? {}),
    modelMetadata: jsonObjectOr(response?.modelMetadata),
    messages: response?.messages ?? [],
    uiMessages: (response?.uiMessages ?? []).map((message) => ({
      ...message,
      metadata: {
        ...jsonObjectOr(message.metadata),
        createdAt: toIso((message.metadata as { createdAt?: unknown } | undefined)?.createdAt),
        ...conversation,
      },
    })),
  };
}

function toIso(value: unknown): string {
  return value instanceof Date || typeof value === 'string' || typeof value === 'number'
    ? new Date(value).toISOString()
    : new Date().toISOString();
}

function jsonObjectOr(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function tripwireOf(tripwire: { reason?: string } | undefined) {
  if (!tripwire) return { tripwire: false };
  return { tripwire: true, tripwireReason: tripwire.reason || 'The request was blocked by a guardrail.' };
}
