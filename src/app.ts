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
import { MAX_BODY_BYTES } from './routes/agent-call.ts';
import { createAgentRoutes, THREAD_HEADER } from './routes/agent-routes.ts';
import { createErrorHandlers } from './routes/error-handler.ts';
import { createThreadRoutes } from './routes/thread-routes.ts';
import { createCorsOrigin } from './security/cors-origin.ts';
import { queryGuard } from './security/query-guard.ts';
import { createRouteGate } from './security/route-gate.ts';

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
    server: {
      port: config.server.port,
      host: config.server.host,
      // Ours run after Mastra's context, CORS, /health and auth middleware, before every route handler.
      middleware: [
        traceId,
        queryGuard,
        errors.envelope,
        createRouteGate({ mode: config.server.mode }),
        ...createAgentRoutes({ modelConfigured: Boolean(config.model), stream: config.stream, mode: config.server.mode }),
      ],
      onError: errors.onError,
      onValidationError: errors.onValidationError,
      build: { openAPIDocs: true },
      bodySizeLimit: MAX_BODY_BYTES,
      // Browser clients need to read the ids the SPEC routes answer with.
      cors: { origin: createCorsOrigin(config.cors), exposeHeaders: [TRACE_HEADER, THREAD_HEADER] },
      apiRoutes: createThreadRoutes(errors.specErrors),
    },
  });
}

/**
 * How `npm start` serves the Mastra instance: no Studio, and no browser-stream
 * WebSocket route (Mastra registers it ahead of every middleware, so the route
 * gate could not close it; the companion has no browser tool).
 */
export const SERVER_OPTIONS = { tools: {}, studio: false, browserStream: false };

/** The whole service as one in-process Hono app (`app.request()` / `app.fetch`), exactly as `npm start` serves it. */
export async function createApp(config: Config) {
  const mastra = createMastra(config);
  const app = await createHonoServer(mastra, SERVER_OPTIONS);
  return { mastra, app };
}
