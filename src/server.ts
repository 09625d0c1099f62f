/**
 * @module The production entry point (`npm start`): the Mastra server from the
 * environment's configuration, without the Studio UI (`npm run dev` has it).
 */
import { createNodeServer } from '@mastra/deployer/server';
import { loadConfig } from '../mastra.config.ts';
import { createMastra, SERVER_OPTIONS } from './app.ts';

await createNodeServer(createMastra(loadConfig()), SERVER_OPTIONS);
