/**
 * @module The production entry point (`npm start`): the Mastra server from the
 * environment's configuration, without the Studio UI (`npm run dev` has it).
 */
import type { Server } from 'node:http';
import { createNodeServer } from '@mastra/deployer/server';
import { loadConfig } from '../mastra.config.ts';
import { createMastra, SERVER_OPTIONS } from './app.ts';

const config = loadConfig();
const server = (await createNodeServer(createMastra(config), SERVER_OPTIONS)) as Server;
// Mastra passes no read timeouts to Node, whose defaults give a client 300 s to trickle in one request.
// Node checks them every 30 s (its connectionsCheckingInterval), so a slow request is cut within 30 s of its limit.
server.headersTimeout = config.server.headersTimeoutMs;
server.requestTimeout = config.server.requestTimeoutMs;
