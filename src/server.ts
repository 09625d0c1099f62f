/**
 * @module The production entry point (`npm start`): the Mastra server from the
 * environment's configuration, without the Studio UI (`npm run dev` has it).
 */
import type { Server } from 'node:http';
import { refuseToStartOn } from './startup-refusal.ts';
import { exitOnStopSignalsWhileStarting } from './stop-signals.ts';

// Before the service's modules load (seconds on a cold start): see stop-signals.ts.
exitOnStopSignalsWhileStarting();
const { loadConfig } = await import('../mastra.config.ts');
const { exitOnListenFailure } = await import('./listen-failure.ts');
// The configuration first, then the service (see loadConfig: the AI SDK reads the environment as it loads).
const config = loadConfig();
exitOnListenFailure(config.server);
const [{ createNodeServer }, { applyReadTimeouts }, { createMastra, SERVER_OPTIONS }] = await Promise.all([
  import('@mastra/deployer/server'),
  import('./security/read-timeouts.ts'),
  import('./app.ts'),
]);

const server = (await createNodeServer(await refuseToStartOn(createMastra(config)), SERVER_OPTIONS)) as Server;
// At once, before any request: see src/security/read-timeouts.ts.
applyReadTimeouts(server, config.server);
