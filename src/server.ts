/**
 * @module The production entry point (`npm start`): the Mastra server from the
 * environment's configuration, without the Studio UI (`npm run dev` has it).
 */
import type { Server } from 'node:http';
import { createNodeServer } from '@mastra/deployer/server';
import { loadConfig } from '../mastra.config.ts';
import { exitOnListenFailure } from './listen-failure.ts';
import { applyReadTimeouts } from './security/read-timeouts.ts';

// The configuration first, then the service (see loadConfig: the AI SDK reads the environment as it loads).
const config = loadConfig();
exitOnListenFailure(config.server);
const { createMastra, SERVER_OPTIONS } = await import('./app.ts');

const server = (await createNodeServer(await createMastra(config), SERVER_OPTIONS)) as Server;
// At once, before any request: see src/security/read-timeouts.ts.
applyReadTimeouts(server, config.server);
