/**
 * The small SPEC shapes both mappers share (usage, finish reasons, step types,
 * tool calls and results), each made from the Mastra value it replaces.
 */

export interface SpecUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
}

interface MastraUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  reasoningTokens?: number;
  cachedInputTokens?: number;
}

/** Mastra's usage without its provider-specific `raw` block; missing counts are 0. */
export function toSpecUsage(usage: MastraUsage | undefined): SpecUsage {
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

/** AI SDK reasons are kebab-case (`tool-calls`); SPEC's are snake_case (`tool_calls`). */
export function toSpecFinishReason(reason: string | undefined): string {
  return (reason ?? 'unknown').replaceAll('-', '_');
}

/** Mastra calls the step after a tool round `tool-result`; SPEC calls it `tool_execution`. */
export function toSpecStepType(stepType: string | undefined): string {
  if (!stepType || stepType === 'initial') return 'initial';
  if (stepType === 'tool-result') return 'tool_execution';
  return stepType.replaceAll('-', '_');
}

export interface SpecToolCall {
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  providerMetadata?: unknown;
}

export interface SpecToolResult {
  toolCallId: string;
  toolName: string;
  result: unknown;
}

interface MastraToolChunk {
  payload: {
    toolCallId: string;
    toolName: string;
    args?: Record<string, unknown>;
    result?: unknown;
    providerMetadata?: unknown;
  };
}

export function toSpecToolCall({ payload }: MastraToolChunk): SpecToolCall {
  const call: SpecToolCall = { toolCallId: payload.toolCallId, toolName: payload.toolName, args: payload.args ?? {} };
  if (payload.providerMetadata !== undefined) call.providerMetadata = payload.providerMetadata;
  return call;
}

export function toSpecToolResult({ payload }: MastraToolChunk): SpecToolResult {
  return { toolCallId: payload.toolCallId, toolName: payload.toolName, result: payload.result };
}
