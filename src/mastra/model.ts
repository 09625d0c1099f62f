/**
 * @module The companion's language model: any OpenAI-compatible server.
 *
 * Chat Completions is the default because every compatible server (Ollama,
 * LM Studio, vLLM) speaks it. The Responses API is opt-in; there the agent sends
 * history inline (`store: false`, see `modelProviderOptions`) because item
 * references only resolve in OpenAI's own store.
 */
import { createOpenAI } from '@ai-sdk/openai';
import type { MastraModelConfig } from '@mastra/core/llm';
import type { LanguageModelV4FinishReason, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { APICallError, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import type { Config } from '../../mastra.config.ts';
import { rethrowLongWait } from './long-rate-limits.ts';
import { uniqueToolCallIds } from './unique-tool-call-ids.ts';

export function createCompanionModel(model: Config['model']): MastraModelConfig {
  return createLanguageModel(model) as unknown as MastraModelConfig;
}

// Mastra 1.71's declared V4 model type lags @ai-sdk/openai 4's (`doGenerate` result); at run time they agree.
function createLanguageModel(model: Config['model']) {
  if (!model) {
    // No key and no base URL: the provider reports the missing key when a call is made, so the service (and
    // Studio) still start; the agent routes answer earlier. The id says so wherever Studio shows it.
    return createOpenAI().chat('not-configured');
  }
  const provider = createOpenAI({ apiKey: model.apiKey, baseURL: model.baseURL });
  const languageModel = model.api === 'responses' ? provider.responses(model.id) : provider.chat(model.id);
  return wrapLanguageModel({ model: languageModel, middleware: [passOnLongRateLimits, settleUnnamedFinishes, uniqueToolCallIds] });
}

/** Mastra retries a 429 after the wait the upstream names: see long-rate-limits.ts. */
const passOnLongRateLimits: LanguageModelMiddleware = {
  wrapGenerate: ({ doGenerate }) => Promise.resolve(doGenerate()).catch(rethrowLongWait),
  wrapStream: ({ doStream }) => Promise.resolve(doStream()).catch(rethrowLongWait),
};

type FinishReason = LanguageModelV4FinishReason;

/** Servers' own names for a finish at the length limit (Mistral's, and Anthropic-style proxies'). */
const LENGTH_FINISHES = new Set(['model_length', 'max_tokens']);

/**
 * Compatible servers name finishes OpenAI does not ("eos_token", "eos", "model_length"), which the provider
 * reports as `other`; Mastra takes any finish it does not know as final for another step, so the model was
 * asked to go on from its own finished reply, up to the step limit, and a stream read it as cut off. A step
 * that called tools ended for them (some servers say `stop` then); one that called none has answered: its
 * `other` is a `stop`, or a `length` when the server says so, and so is a `tool_calls` with no call in it
 * (Mastra would run the step again for tools that were never called, repeating its text).
 */
function settledFinish(finishReason: FinishReason, calledTools: boolean): FinishReason {
  if (calledTools) return finishReason.unified === 'other' || finishReason.unified === 'stop' ? { ...finishReason, unified: 'tool-calls' } : finishReason;
  if (finishReason.unified !== 'other' && finishReason.unified !== 'tool-calls') return finishReason;
  return { ...finishReason, unified: LENGTH_FINISHES.has(finishReason.raw ?? '') ? 'length' : 'stop' };
}

/**
 * A streamed answer that ends without a finish (the provider's `interrupted`) was cut off: it fails as a call whose
 * answer began (200) and could not be read to its end, which is how a cut connection fails. Mastra took such a step
 * for one to continue, and called the model again, up to the step limit, repeating the reply so far each time.
 */
function cutOff(): APICallError {
  return new APICallError({ message: 'The model stream ended without a finish reason.', url: '', requestBodyValues: undefined, statusCode: 200, isRetryable: false });
}

const settleUnnamedFinishes: LanguageModelMiddleware = {
  wrapGenerate: async ({ doGenerate }) => {
    const result = await doGenerate();
    return { ...result, finishReason: settledFinish(result.finishReason, result.content.some((part) => part.type === 'tool-call')) };
  },
  wrapStream: async ({ doStream }) => {
    const { stream, ...rest } = await doStream();
    let calledTools = false;
    const settled = new TransformStream<LanguageModelV4StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        if (part.type === 'tool-call') calledTools = true;
        if (part.type !== 'finish') controller.enqueue(part);
        else if (part.finishReason.unified === 'interrupted') controller.enqueue({ type: 'error', error: cutOff() });
        else controller.enqueue({ ...part, finishReason: settledFinish(part.finishReason, calledTools) });
      },
    });
    return { ...rest, stream: stream.pipeThrough(settled) };
  },
};

export function modelProviderOptions(model: Config['model']) {
  return model?.api === 'responses' ? { openai: { store: false } } : undefined;
}
