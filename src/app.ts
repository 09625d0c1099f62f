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
import { createStorage, isPostgresUrl } from './mastra/storage.ts';
import { PostgresTurnLock } from './threads/postgres-turn-lock.ts';
import { InProcessTurnLock, type TurnLock } from './threads/turn-lock.ts';
import { TRACE_HEADER, traceId } from './routes/trace-id.ts';
import { createAgentRoutes, THREAD_HEADER } from './routes/agent-routes.ts';
import { createErrorHandlers } from './routes/error-handler.ts';
import { createThreadRoutes } from './routes/thread-routes.ts';

/** Mastra's default cap on a request handler, kept for every route unless a turn may take longer. */
const MASTRA_HANDLER_TIMEOUT_MS = 180_000;
const TURN_ANSWER_MARGIN_MS = 5_000;

/**
 * Turn order across replicas needs the store's help: PostgreSQL advisory locks.
 * The other stores are opened by one process (a LibSQL file), or by replicas the
 * README asks to keep on one thread each; their turns are ordered in process.
 */
function createTurnLock(config: Config, logger: PinoLogger): TurnLock {
  const local = new InProcessTurnLock({ maxQueued: config.turns.maxQueued });
  if (!config.databaseUrl || !isPostgresUrl(config.databaseUrl)) return local;
  return new PostgresTurnLock(config.databaseUrl, local, {
    onConnectionError: (error) => logger.warn('turn lock connection lost; running turns lost their cross-replica lock', { error: error.message }),
  });
}

export function createMastra(config: Config): Mastra {
  // The database belongs to conversation memory alone. Given to Mastra as a whole it would also hold
  // the run state of every turn, so an unreachable database would fail stateless turns too; that
  // short-lived state stays in process instead (said explicitly, which also silences Mastra's warning).
  const memory = createMemory(createStorage(config.databaseUrl), config.memory);
  const agent = createCompanionAgent({
    model: config.model,
    modelMaxRetries: config.modelMaxRetries,
    modelMaxOutputTokens: config.modelMaxOutputTokens,
    openMeteo: config.openMeteo,
    memory,
  });
  const errors = createErrorHandlers({ isDevelopment: config.isDevelopment });
  const logger = new PinoLogger({ name: 'companion-agent', level: config.logLevel });
  const agentRoutes = createAgentRoutes({
    modelConfigured: Boolean(config.model),
    turns: { lock: createTurnLock(config, logger), timeoutMs: config.turns.timeoutMs, idleTimeoutMs: config.turns.idleTimeoutMs },
    stream: config.stream,
  });

  return new Mastra({
    agents: { [COMPANION_AGENT_ID]: agent },
    storage: new InMemoryStore({ id: 'run-state' }),
    logger,
    server: {
      port: config.server.port,
      host: config.server.host,
      // Mastra answers a handler that outlives this with its own 504; a turn answers its own timeout first.
      timeout: Math.max(MASTRA_HANDLER_TIMEOUT_MS, config.turns.timeoutMs + TURN_ANSWER_MARGIN_MS),
      middleware: [traceId, ...agentRoutes],
      onError: errors.onError,
      onValidationError: errors.onValidationError,
      build: { openAPIDocs: true },
      // Browser clients need to read the ids the SPEC routes answer with.
      cors: { exposeHeaders: [TRACE_HEADER, THREAD_HEADER] },
      apiRoutes: createThreadRoutes(errors.specErrors),
    },
  });
}

/** The whole service as one in-process Hono app (`app.request()` / `app.fetch`), exactly as `npm start` serves it. */
export async function createApp(config: Config) {
  const mastra = createMastra(config);
  const app = await createHonoServer(mastra, { tools: {}, studio: false });
  return { mastra, app };
}
