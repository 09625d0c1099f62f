import { createNodeServer } from '@mastra/deployer/server';
import { mastra } from './mastra/index.ts';

// The production entry point (`npm start`): the Mastra server, without the Studio UI (`npm run dev` has it).
// Mastra initialises storage after the server listens and rethrows a failure. An unreachable store must
// not take the service down: stateless turns still work, and memory requests answer MEMORY_NOT_INITIALIZED
// (Mastra retries the store on its next use).
await createNodeServer(mastra, { tools: {}, studio: false }).catch((error: { domain?: string }) => {
  if (error?.domain !== 'STORAGE') throw error;
  mastra.getLogger().error('The store is unreachable; memory requests will fail until it is back', { error });
});
