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
import type { Config } from '../../mastra.config.ts';

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
  return model.api === 'responses' ? provider.responses(model.id) : provider.chat(model.id);
}

export function modelProviderOptions(model: Config['model']) {
  return model?.api === 'responses' ? { openai: { store: false } } : undefined;
}
