/**
 * @module The Mastra instance `mastra dev` (Studio) and `mastra build` look for,
 * built by the composition root from the environment's configuration.
 */
import { loadConfig } from '../../mastra.config.ts';
import { createMastra } from '../app.ts';

export const mastra = createMastra(loadConfig());
