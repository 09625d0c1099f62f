import { Mastra } from '@mastra/core/mastra';
import { PinoLogger } from '@mastra/loggers';
import { config } from '../../mastra.config.ts';
import { createCompanionAgent } from './agents/companion-agent.ts';
import { createMemory } from './memory.ts';
import { createStorage } from './storage.ts';
import { traceId } from '../routes/trace-id.ts';
import { agentRoutes } from '../routes/agent-routes.ts';
import { errorHandler } from '../routes/error-handler.ts';

const storage = createStorage(config.databaseUrl);
const memory = createMemory(storage, config.memory);

export const mastra = new Mastra({
  agents: { companionAgent: createCompanionAgent(memory) },
  storage,
  logger: new PinoLogger({ name: 'companion-agent', level: config.logLevel }),
  server: {
    port: config.server.port,
    host: config.server.host,
    middleware: [traceId, ...agentRoutes],
    onError: errorHandler,
  },
});
