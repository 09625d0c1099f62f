import {
  addUsage,
  toSpecFinishReason,
  toSpecStepType,
  toSpecToolCall,
  toSpecToolResult,
  toSpecUsage,
  type SpecUsage,
} from './shapes.ts';
import { redactRequestBody } from './redact.ts';

/**
 * Maps the result of `agent.generate()` to SPEC's generate response: flat tool
 * calls and results, snake_case finish reasons, SPEC step types, usage without
 * provider internals, the model request with its system prompt and tool schemas
 * redacted, and the conversation ids on every UI message.
 */

type Json = Record<string, unknown>;

interface MastraStep {
  stepType?: string;
  text?: string;
  reasoningText?: string;
  reasoning?: unknown[];
  content?: Array<{ type: string; text?: string }>;
  sources?: unknown[];
  files?: unknown[];
  toolCalls?: Parameters<typeof toSpecToolCall>[0][];
  toolResults?: Parameters<typeof toSpecToolResult>[0][];
  staticToolCalls?: Parameters<typeof toSpecToolCall>[0][];
  dynamicToolCalls?: Parameters<typeof toSpecToolCall>[0][];
  staticToolResults?: Parameters<typeof toSpecToolResult>[0][];
  dynamicToolResults?: Parameters<typeof toSpecToolResult>[0][];
  finishReason?: string;
  usage?: Parameters<typeof toSpecUsage>[0];
  warnings?: unknown[];
  request?: { body?: unknown };
  response?: MastraResponse;
  providerMetadata?: Json;
  tripwire?: unknown;
}

interface MastraResponse {
  id?: string;
  timestamp?: Date | string;
  modelId?: string;
  headers?: Record<string, string>;
  modelMetadata?: Json;
  messages?: unknown[];
  uiMessages?: Array<{ id: string; role: string; metadata?: Json; parts?: unknown[] }>;
}

export interface MastraGenerateResult extends MastraStep {
  steps?: MastraStep[];
  totalUsage?: Parameters<typeof toSpecUsage>[0];
}

export interface Conversation {
  threadId?: string;
  resourceId?: string;
}

export function toGenerateResponse(result: MastraGenerateResult, conversation: Conversation, traceId: string) {
  const steps = mapSteps(result.steps ?? [], conversation, traceId);
  const lastStep = result.steps?.at(-1);
  return {
    text: result.text ?? '',
    usage: toSpecUsage(result.usage),
    steps,
    finishReason: toSpecFinishReason(result.finishReason),
    warnings: result.warnings ?? [],
    providerMetadata: result.providerMetadata ?? {},
    request: { body: redactRequestBody(lastStep?.request?.body) },
    reasoning: result.reasoning ?? [],
    toolCalls: (result.toolCalls ?? []).map(toSpecToolCall),
    toolResults: (result.toolResults ?? []).map(toSpecToolResult),
    sources: result.sources ?? [],
    files: result.files ?? [],
    response: toSpecResponse(result.response ?? lastStep?.response, conversation),
    totalUsage: toSpecUsage(result.totalUsage ?? result.usage),
    ...tripwireOf(result),
    traceId,
  };
}

function mapSteps(steps: MastraStep[], conversation: Conversation, traceId: string) {
  let runningUsage: SpecUsage = toSpecUsage(undefined);
  return steps.map((step) => {
    const usage = toSpecUsage(step.usage);
    runningUsage = addUsage(runningUsage, usage);
    return {
      stepType: toSpecStepType(step.stepType),
      sources: step.sources ?? [],
      files: step.files ?? [],
      toolCalls: (step.toolCalls ?? []).map(toSpecToolCall),
      toolResults: (step.toolResults ?? []).map(toSpecToolResult),
      content: (step.content ?? []).filter(hasText).map(({ type, text }) => ({ type, text })),
      text: step.text ?? '',
      reasoningText: step.reasoningText ?? '',
      reasoning: step.reasoning ?? [],
      staticToolCalls: (step.staticToolCalls ?? []).map(toSpecToolCall),
      dynamicToolCalls: (step.dynamicToolCalls ?? []).map(toSpecToolCall),
      staticToolResults: (step.staticToolResults ?? []).map(toSpecToolResult),
      dynamicToolResults: (step.dynamicToolResults ?? []).map(toSpecToolResult),
      finishReason: toSpecFinishReason(step.finishReason),
      usage,
      totalUsage: runningUsage,
      warnings: step.warnings ?? [],
      request: { body: redactRequestBody(step.request?.body) },
      response: toSpecResponse(step.response, conversation),
      providerMetadata: step.providerMetadata ?? {},
      ...tripwireOf(step),
      traceId,
    };
  });
}

function hasText(part: { type: string; text?: string }): part is { type: string; text: string } {
  return typeof part.text === 'string';
}

function toSpecResponse(response: MastraResponse | undefined, conversation: Conversation) {
  const timestamp = response?.timestamp;
  return {
    id: response?.id ?? '',
    timestamp: timestamp instanceof Date ? timestamp.toISOString() : (timestamp ?? new Date().toISOString()),
    modelId: response?.modelId ?? '',
    headers: withoutCookies(response?.headers ?? {}),
    modelMetadata: response?.modelMetadata ?? {},
    messages: response?.messages ?? [],
    uiMessages: (response?.uiMessages ?? []).map((message) => ({
      ...message,
      metadata: {
        ...message.metadata,
        createdAt: toIso(message.metadata?.createdAt),
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

// Upstream cookies belong to the service's connection to the model, not to our client.
function withoutCookies(headers: Record<string, string>) {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'set-cookie'));
}

function tripwireOf(result: { tripwire?: unknown }) {
  const tripwire = result.tripwire as { reason?: string } | boolean | undefined;
  if (!tripwire) return { tripwire: false };
  const reason = typeof tripwire === 'object' ? tripwire.reason : undefined;
  return { tripwire: true, tripwireReason: reason ?? 'The request was blocked by a guardrail.' };
}
