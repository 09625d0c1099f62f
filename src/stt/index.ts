/**
 * @module Picks the speech-to-text engine the configuration names. The local engine comes in as a factory,
 * so this module does not load it (or its system packages) when the `openai` engine is configured.
 */
import type { SttConfig } from '../../mastra.config.ts';
import type { SttEngine } from './engine.ts';
import { createOpenAIEngine } from './openai-engine.ts';

export function createSttEngine(config: SttConfig, engines: { local: () => SttEngine }): SttEngine {
  if (config.provider === 'local') return engines.local();
  return createOpenAIEngine({ apiKey: config.apiKey, baseURL: config.baseURL, model: config.model, maxRetries: config.maxRetries });
}
