/**
 * @module The composition root: builds storage, memory, tools, agent and
 * server wiring from one parsed configuration. Only the entry points
 * (`src/server.ts` for `npm start`, `src/mastra/index.ts` for `mastra dev`)
 * call it with the environment's configuration; tests call it with their own.
 */
import { Mastra } from '@mastra/core/mastra';
import { InMemoryStore, MastraCompositeStore } from '@mastra/core/storage';
import { createHonoServer } from '@mastra/deployer/server';
import type { Config } from '../mastra.config.ts';
import { COMPANION_AGENT_ID, createCompanionAgent } from './mastra/agents/companion-agent.ts';
import { createMemory } from './mastra/memory.ts';
import { createStorage } from './mastra/storage.ts';
import { createLogger } from './observability/logger.ts';
import { createTracing, type Tracing } from './observability/tracing.ts';
import { TRACE_HEADER, traceId } from './routes/trace-id.ts';
import { createAgentRoutes, THREAD_HEADER } from './routes/agent-routes.ts';
import { createErrorHandlers } from './routes/error-handler.ts';
import { createThreadRoutes } from './routes/thread-routes.ts';
import { createReadyRoute, READY_PATH } from './routes/ready-route.ts';
import { modelCheck, storeCheck } from './observability/readiness.ts';
import { createAuthProvider } from './security/auth-provider.ts';
import { authenticate } from './security/authenticate.ts';
import { PostgresRateLimitStore } from './security/postgres-rate-limit-store.ts';
import { rateLimit } from './security/rate-limit.ts';
import type { Store } from 'hono-rate-limiter';

/** Probes answer without a token and are never rate limited. */
export const PROBE_PATHS = ['/health', READY_PATH] as const;

/** The security middleware in order: who is calling, then how often. */
function securityMiddleware(config: Config, auth: ReturnType<typeof createAuthProvider>, rateLimitStore: Store | undefined) {
  return [
    ...(auth ? [authenticate({ provider: auth, publicPaths: PROBE_PATHS })] : []),
    rateLimit({ ...config.rateLimit, store: rateLimitStore }),
  ];
}

/** The service's parts, and how to let go of their connections (tests, graceful shutdown). */
export interface Companion {
  mastra: Mastra;
  close(): Promise<void>;
}

export function createMastra(config: Config): Mastra {
  return createCompanion(config).mastra;
}

/**
 * Mastra's own store. The database belongs to conversation memory alone: given to Mastra as a
 * whole it would also hold the run state of every turn, so an unreachable database would fail
 * stateless turns too; that short-lived state stays in process instead (said explicitly, which
 * also silences Mastra's warning). Traces, with tracing on, go to their own local store.
 */
function mastraStore(tracing: Tracing | undefined) {
  const runState = new InMemoryStore({ id: 'run-state' });
  if (!tracing) return runState;
  return new MastraCompositeStore({ id: 'run-state-and-traces', default: runState, domains: { observability: tracing.store } });
}

export function createCompanion(config: Config): Companion {
  const storage = createStorage(config.databaseUrl);
  const memory = createMemory(storage, config.memory);
  // Several replicas on one PostgreSQL share each client's count; otherwise it is counted in process.
  const rateLimitStore = config.databaseUrl?.startsWith('postgres') ? new PostgresRateLimitStore(config.databaseUrl) : undefined;
  const agent = createCompanionAgent({
    model: config.model,
    modelMaxRetries: config.modelMaxRetries,
    openMeteo: config.openMeteo,
    memory,
  });
  const errors = createErrorHandlers({ isDevelopment: config.isDevelopment });
  const auth = createAuthProvider(config.auth);
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  const tracing = config.tracing && createTracing({ storePath: config.tracing.storePath, logLevel: config.logLevel, logger });

  const mastra = new Mastra({
    agents: { [COMPANION_AGENT_ID]: agent },
    storage: mastraStore(tracing),
    ...(tracing && { observability: tracing.observability }),
    logger,
    server: {
      port: config.server.port,
      host: config.server.host,
      // Mastra's own routes check `auth` themselves; our middleware and SPEC routes use the same provider.
      auth,
      middleware: [
        traceId,
        ...securityMiddleware(config, auth, rateLimitStore),
        ...createAgentRoutes({ modelConfigured: Boolean(config.model), stream: config.stream }),
      ],
      onError: errors.onError,
      onValidationError: errors.onValidationError,
      build: { openAPIDocs: true },
      // Browser clients need to read the ids the SPEC routes answer with.
      cors: { exposeHeaders: [TRACE_HEADER, THREAD_HEADER] },
      apiRoutes: [
        ...createThreadRoutes(errors.specErrors),
        createReadyRoute({ store: storeCheck(storage), model: modelCheck(config.model) }),
      ],
    },
  });
  return {
    mastra,
    async close() {
      await Promise.all([storage?.close(), rateLimitStore?.close(), tracing?.close()]);
    },
  };
}

/** The whole service as one in-process Hono app (`app.request()` / `app.fetch`), exactly as `npm start` serves it. */
export async function createApp(config: Config) {
  const companion = createCompanion(config);
  const app = await createHonoServer(companion.mastra, { tools: {}, studio: false });
  return { ...companion, app };
}
