/**
 * @module The companion as the floor and peer servers run it: the same instructions (the default
 * voice), the same two tools with the same schemas, and the same memory settings as ours, so the
 * three servers differ only in the framework code around the model call.
 */
import { DEFAULT_PERSONALITY } from '../src/contract/personalities.ts';
import { instructionsFor } from '../src/mastra/agents/personalities.ts';
import { WORKING_MEMORY_TEMPLATE } from '../src/mastra/working-memory-template.ts';
import { createSpiritualDestinationsTool } from '../src/mastra/tools/spiritual-destinations-tool.ts';
import { createWeatherTool } from '../src/mastra/tools/weather-tool.ts';

export const AGENT_ID = 'companionAgent';
export const MODEL_ID = 'gpt-4o-mini';
export const INSTRUCTIONS = instructionsFor(DEFAULT_PERSONALITY);

/** Ours' defaults (mastra.config.ts): a 20-message window, resource-scoped working memory on ours' template, no semantic recall. */
export const MEMORY_OPTIONS = {
  lastMessages: 20,
  semanticRecall: false,
  workingMemory: { enabled: true, scope: 'resource', template: WORKING_MEMORY_TEMPLATE },
} as const;

export function companionTools(env: ServerEnv) {
  const openMeteo = { geocodingUrl: env.OPEN_METEO_GEOCODING_URL, forecastUrl: env.OPEN_METEO_FORECAST_URL, timeoutMs: 10_000 };
  return {
    weatherTool: createWeatherTool(openMeteo),
    spiritualDestinationsTool: createSpiritualDestinationsTool(openMeteo),
  };
}

/** What every bench server process is started with (environment variables, as ours reads them). */
export interface ServerEnv {
  HOST: string;
  PORT: string;
  OPENAI_BASE_URL: string;
  OPEN_METEO_GEOCODING_URL: string;
  OPEN_METEO_FORECAST_URL: string;
  /** floor ignores it: the floor keeps no memory */
  DATABASE_URL: string;
}

export function readServerEnv(env: NodeJS.ProcessEnv): ServerEnv {
  const keys = ['HOST', 'PORT', 'OPENAI_BASE_URL', 'OPEN_METEO_GEOCODING_URL', 'OPEN_METEO_FORECAST_URL', 'DATABASE_URL'] as const;
  const missing = keys.filter((key) => !env[key]);
  if (missing.length) throw new Error(`bench server: missing ${missing.join(', ')}`);
  return Object.fromEntries(keys.map((key) => [key, env[key]!])) as unknown as ServerEnv;
}
