/**
 * @module The Mastra instance `mastra dev` (Studio) and `mastra build` look for,
 * built by the composition root from the environment's configuration.
 *
 * Modules the service imports too are imported here with `import()`, never at the top: the bundle would keep them
 * in this module's chunk, and the service, which this module waits for, would import them back from it (a cycle
 * the build's entry never gets out of: Node exits with "unsettled top-level await").
 */
import { exitOnListenFailure } from '../listen-failure.ts';
import { requireSupportedNode } from '../node-version.ts';

// As early as this module runs (see stop-signals.ts; a container runs the build under tini as well).
(await import('../stop-signals.ts')).exitOnStopSignalsWhileStarting();
// `node .mastra/output/index.mjs` runs on whatever Node is at hand (npm start's own Node needs no check).
requireSupportedNode();
// The configuration first, then the service (see loadConfig).
const { loadConfig } = await import('../../mastra.config.ts');
const config = loadConfig();
// The server mastra build and mastra dev start around this instance reports an address it cannot listen on as npm start does.
exitOnListenFailure(config.server);
const [{ createMastra }, { refuseToStartOn }] = await Promise.all([import('../app.ts'), import('../startup-refusal.ts')]);

export const mastra = await refuseToStartOn(createMastra(config));
