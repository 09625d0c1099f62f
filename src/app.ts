/**
 * @module The composition root: builds storage, memory, tools, agent and
 * server wiring from one parsed configuration. Only the entry points
 * (`src/server.ts` for `npm start`, `src/mastra/index.ts` for `mastra dev`)
 * call it with the environment's configuration; tests call it with their own.
 */
import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore } from '@mastra/core/storage';
import { PinoLogger } from '@mastra/loggers';
import { createHonoServer } from '@mastra/deployer/server';
import type { Config } from '../mastra.config.ts';
import { COMPANION_AGENT_ID, createCompanionAgent } from './mastra/agents/companion-agent.ts';
import { createMemory } from './mastra/memory.ts';
import { createStorage } from './mastra/storage.ts';
import { TRACE_HEADER, traceId } from './routes/trace-id.ts';
import { createAgentRoutes, NATIVE_CLIENT_HEADER, THREAD_HEADER } from './routes/agent-routes.ts';
import { createDocsRoutes, specOpenAPIDocument } from './routes/api-docs.ts';
import { createErrorHandlers } from './routes/error-handler.ts';
import { createThreadRoutes } from './routes/thread-routes.ts';

export function createMastra(config: Config): Mastra {
  // The database belongs to conversation memory alone. Given to Mastra as a whole it would also hold
  // the run state of every turn, so an unreachable database would fail stateless turns too; that
  // short-lived state stays in process instead (said explicitly, which also silences Mastra's warning).
  const memory = createMemory(createStorage(config.databaseUrl), config.memory);
  const agent = createCompanionAgent({
    model: config.model,
    modelMaxRetries: config.modelMaxRetries,
    openMeteo: config.openMeteo,
    memory,
  });
  const errors = createErrorHandlers({ isDevelopment: config.isDevelopment });

  return new Mastra({
    agents: { [COMPANION_AGENT_ID]: agent },
    storage: new InMemoryStore({ id: 'run-state' }),
    logger: new PinoLogger({ name: 'companion-agent', level: config.logLevel }),
    // /docs reads its assets from this package at run time (no import), so `mastra build` must ship it.
    bundler: { dynamicPackages: ['swagger-ui-dist'] },
    server: {
      port: config.server.port,
      host: config.server.host,
      middleware: [
        traceId,
        ...createAgentRoutes({ modelConfigured: Boolean(config.model), stream: config.stream }),
        specOpenAPIDocument({ trace: TRACE_HEADER, thread: THREAD_HEADER, nativeClient: NATIVE_CLIENT_HEADER }),
      ],
      onError: errors.onError,
      onValidationError: errors.onValidationError,
      build: { openAPIDocs: true },
      // Browser clients need to read the ids the SPEC routes answer with.
      cors: { exposeHeaders: [TRACE_HEADER, THREAD_HEADER] },
      apiRoutes: [...createThreadRoutes(errors.specErrors), ...createDocsRoutes()],
    },
  });
}

/** The whole service as one in-process Hono app (`app.request()` / `app.fetch`), exactly as `npm start` serves it. */
export async function createApp(config: Config) {
  const mastra = createMastra(config);
  const app = await createHonoServer(mastra, { tools: {}, studio: false });
  return { mastra, app };
}
