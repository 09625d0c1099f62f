/** @module The companion: four voices, two tools, conversation memory — all from the options given. */
import { Agent } from '@mastra/core/agent';
import type { IMastraLogger } from '@mastra/core/logger';
import type { MastraMemory } from '@mastra/core/memory';
import type { RequestContext } from '@mastra/core/request-context';
import type { Config } from '../../../mastra.config.ts';
import { createCompanionModel, modelProviderOptions } from '../model.ts';
import { createToolErrors } from '../processors/tool-errors.ts';
import { createWeatherTool } from '../tools/weather-tool.ts';
import { createSpiritualDestinationsTool } from '../tools/spiritual-destinations-tool.ts';
import { DEFAULT_PERSONALITY, isPersonality } from '../../contract/personalities.ts';
import { COMPANION_AGENT_ID } from '../../contract/paths.ts';
import { instructionsFor } from './personalities.ts';

/** The request-context key that selects the voice; the SPEC routes set it, Studio users may too. */
export const PERSONALITY_KEY = 'personality';

function personalityOf(requestContext: RequestContext) {
  const requested = requestContext.get(PERSONALITY_KEY);
  return isPersonality(requested) ? requested : DEFAULT_PERSONALITY;
}

export interface CompanionAgentOptions {
  model: Config['model'];
  modelMaxRetries: number;
  modelMaxOutputTokens: number;
  openMeteo: Config['openMeteo'];
  memory: MastraMemory | undefined;
  /** Where failed tool calls are reported (the request itself succeeds). */
  logger: IMastraLogger;
}

export function createCompanionAgent({ model, modelMaxRetries, modelMaxOutputTokens, openMeteo, memory, logger }: CompanionAgentOptions) {
  return new Agent({
    id: COMPANION_AGENT_ID,
    name: 'Companion Agent',
    description: 'A conversational companion with four voices (guru, wanderer, friend, philosopher) that can check the weather and suggest spiritual destinations.',
    instructions: ({ requestContext }) => instructionsFor(personalityOf(requestContext)),
    model: createCompanionModel(model),
    maxRetries: modelMaxRetries,
    tools: {
      weatherTool: createWeatherTool(openMeteo),
      spiritualDestinationsTool: createSpiritualDestinationsTool(openMeteo),
    },
    memory,
    outputProcessors: [createToolErrors(logger)],
    defaultOptions: {
      providerOptions: modelProviderOptions(model),
      // Every model call's reply is capped, so one turn's cost and memory are too.
      modelSettings: { maxOutputTokens: modelMaxOutputTokens },
    },
  });
}
