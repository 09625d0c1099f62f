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
import { APICallError, wrapLanguageModel, type LanguageModelMiddleware } from 'ai';
import type { Config } from '../../mastra.config.ts';
import { upstreamRetryAfterMs } from '../contract/errors.ts';

export function createCompanionModel(model: Config['model']): MastraModelConfig {
  return createLanguageModel(model) as unknown as MastraModelConfig;
}

// Mastra 1.71's declared V4 model type lags @ai-sdk/openai 4's (`doGenerate` result); at run time they agree.
function createLanguageModel(model: Config['model']) {
  if (!model) {
    // No key and no base URL: the provider reports the missing key when a call is
    // made, so the service (and Studio) still start. SPEC routes answer earlier.
    return createOpenAI().chat('gpt-4o-mini');
  }
  const provider = createOpenAI({ apiKey: model.apiKey, baseURL: model.baseURL });
  const languageModel = model.api === 'responses' ? provider.responses(model.id) : provider.chat(model.id);
  return wrapLanguageModel({ model: languageModel, middleware: passOnLongRateLimits });
}

/** The longest wait an upstream 429 may ask for and still be retried here rather than passed on. */
export const MAX_RETRY_WAIT_MS = 3_000;

/**
 * Mastra retries a 429 after the `Retry-After` the upstream names (up to 30 s per
 * attempt), holding the turn, the thread and the client meanwhile. When the upstream
 * asks for more than a few seconds, the call is marked not retryable instead, and the
 * client gets the 429 at once, with the wait as its own `Retry-After`.
 */
const passOnLongRateLimits: LanguageModelMiddleware = {
  wrapGenerate: ({ doGenerate }) => Promise.resolve(doGenerate()).catch(rethrowLongWait),
  wrapStream: ({ doStream }) => Promise.resolve(doStream()).catch(rethrowLongWait),
};

function rethrowLongWait(error: unknown): never {
  if (!APICallError.isInstance(error) || error.statusCode !== 429) throw error;
  const waitMs = upstreamRetryAfterMs(error);
  if (waitMs === undefined || waitMs <= MAX_RETRY_WAIT_MS) throw error;
  throw new APICallError({
    message: error.message,
    url: error.url,
    requestBodyValues: error.requestBodyValues,
    statusCode: error.statusCode,
    responseHeaders: error.responseHeaders,
    responseBody: error.responseBody,
    cause: error.cause,
    data: error.data,
    isRetryable: false,
  });
}

export function modelProviderOptions(model: Config['model']) {
  return model?.api === 'responses' ? { openai: { store: false } } : undefined;
}
