/**
 * @module The production entry point (`npm start`): the Mastra server from the
 * environment's configuration, without the Studio UI (`npm run dev` has it).
 */
import type { Server } from 'node:http';
import { createNodeServer } from '@mastra/deployer/server';
import { loadConfig } from '../mastra.config.ts';
import { createMastra, SERVER_OPTIONS } from './app.ts';
import { applyReadTimeouts } from './security/read-timeouts.ts';

const config = loadConfig();
const server = (await createNodeServer(createMastra(config), SERVER_OPTIONS)) as Server;
// At once, before any request: see src/security/read-timeouts.ts.
applyReadTimeouts(server, config.server);
