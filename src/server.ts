import { createNodeServer } from '@mastra/deployer/server';
import { mastra } from './mastra/index.ts';

// The production entry point (`npm start`): the Mastra server, without the Studio UI (`npm run dev` has it).
await createNodeServer(mastra, { tools: {}, studio: false });
