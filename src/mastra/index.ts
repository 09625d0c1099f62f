/**
 * @module The Mastra instance `mastra dev` (Studio) and `mastra build` look for,
 * built by the composition root from the environment's configuration.
 */
import { exitOnListenFailure } from '../listen-failure.ts';
import { refuseToStartOn } from '../startup-refusal.ts';
import { requireSupportedNode } from '../node-version.ts';
import { exitOnStopSignalsWhileStarting } from '../stop-signals.ts';

// As early as this module runs (see stop-signals.ts; a container runs the build under tini as well).
exitOnStopSignalsWhileStarting();
// `node .mastra/output/index.mjs` runs on whatever Node is at hand (npm start's own Node needs no check).
requireSupportedNode();
// The configuration first, then the service (see loadConfig). Both imported here, not at the top: a bundle
// that kept the configuration in this module's chunk would have the service import it back while it waits.
const { loadConfig } = await import('../../mastra.config.ts');
const config = loadConfig();
// The server mastra build and mastra dev start around this instance reports an address it cannot listen on as npm start does.
exitOnListenFailure(config.server);
const { createMastra } = await import('../app.ts');

export const mastra = await refuseToStartOn(createMastra(config));
