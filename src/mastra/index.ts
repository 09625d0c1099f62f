import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore } from '@mastra/core/storage';
import { PinoLogger } from '@mastra/loggers';
import { config } from '../../mastra.config.ts';
import { createCompanionAgent } from './agents/companion-agent.ts';
import { createMemory } from './memory.ts';
import { createStorage } from './storage.ts';
import { TRACE_HEADER, traceId } from '../routes/trace-id.ts';
import { agentRoutes, THREAD_HEADER } from '../routes/agent-routes.ts';
import { errorHandler, validationErrorHandler } from '../routes/error-handler.ts';
import { threadRoutes } from '../routes/thread-routes.ts';

// The database belongs to conversation memory alone. Given to Mastra as a whole it would also hold
// the run state of every turn, so an unreachable database would fail stateless turns too; that
// short-lived state stays in process instead (said explicitly, which also silences Mastra's warning).
const memory = createMemory(createStorage(config.databaseUrl), config.memory);

export const mastra = new Mastra({
  agents: { companionAgent: createCompanionAgent(memory) },
  storage: new InMemoryStore({ id: 'run-state' }),
  logger: new PinoLogger({ name: 'companion-agent', level: config.logLevel }),
  server: {
    port: config.server.port,
    host: config.server.host,
    middleware: [traceId, ...agentRoutes],
    onError: errorHandler,
    onValidationError: validationErrorHandler,
    build: { openAPIDocs: true },
    // Browser clients need to read the ids the SPEC routes answer with.
    cors: { exposeHeaders: [TRACE_HEADER, THREAD_HEADER] },
    apiRoutes: threadRoutes,
  },
});
