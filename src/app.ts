/**
 * @module The composition root: builds storage, memory, tools, agent and
 * server wiring from one parsed configuration. Only the entry points
 * (`src/server.ts` for `npm start`, `src/mastra/index.ts` for `mastra dev`)
 * call it with the environment's configuration; tests call it with their own.
 */
import { tmpdir } from 'node:os';
import { Mastra } from '@mastra/core/mastra';
import type { IMastraLogger } from '@mastra/core/logger';
import { InMemoryStore, MastraCompositeStore } from '@mastra/core/storage';
import { createHonoServer } from '@mastra/deployer/server';
import type { Store } from 'hono-rate-limiter';
import type { Config } from '../mastra.config.ts';
import { createCompanionAgent } from './mastra/agents/companion-agent.ts';
import { COMPANION_AGENT_ID } from './contract/paths.ts';
import { createMemory } from './mastra/memory.ts';
import { createStorage, isPostgresUrl } from './mastra/storage.ts';
import { createLogger } from './observability/logger.ts';
import { modelCheck, storeCheck } from './observability/readiness.ts';
import { outsideRequests } from './observability/request-trace.ts';
import { createTracing, type Tracing } from './observability/tracing.ts';
import { MAX_BODY_BYTES } from './routes/agent-call.ts';
import { createAgentRoutes } from './routes/agent-routes.ts';
import { createDocsRoutes, specOpenAPIDocument } from './routes/api-docs.ts';
import { discardUnreadBody, leaveFramingToNode } from './routes/client-connection.ts';
import { createErrorHandlers } from './routes/error-handler.ts';
import { createReadyRoute } from './routes/ready-route.ts';
import { createSttRoute, type SttRouteDeps } from './routes/stt-route.ts';
import { createThreadRoutes, threadMiddleware } from './routes/thread-routes.ts';
import { accessLog, traceId } from './routes/trace-id.ts';
import { THREAD_HEADER, TRACE_HEADER } from './contract/headers.ts';
import { createAuthProvider } from './security/auth-provider.ts';
import { authenticate } from './security/authenticate.ts';
import { createCorsOrigin } from './security/cors-origin.ts';
import { localHostGuard } from './security/host-guard.ts';
import { PostgresRateLimitStore } from './security/postgres-rate-limit-store.ts';
import { queryGuard } from './security/query-guard.ts';
import { readTimeouts } from './security/read-timeouts.ts';
import { rateLimit } from './security/rate-limit.ts';
import { createRouteGate, optionsThrough, PUBLIC_ROUTES } from './security/route-gate.ts';
import { studioShell } from './security/studio-shell.ts';
import { threadClaimGuard } from './security/thread-claim-guard.ts';
import { MAX_AUDIO_BYTES } from './contract/stt.ts';
import { createSttEngine } from './stt/index.ts';
import type { EngineReadiness, SttEngine } from './stt/engine.ts';
import { companionVocabulary } from './stt/companion-vocabulary.ts';
import { createLocalEngine } from './stt/local-engine.ts';
import { openScratchFolder, scratchFolderLater, scratchProblem, type ScratchFolder } from './stt/scratch-folder.ts';
import { PostgresTurnLock } from './threads/postgres-turn-lock.ts';
import { MASTRA_DELETION_PATHS, queueMastraDeletions } from './threads/queued-deletion.ts';
import { RunningTurns } from './threads/running-turns.ts';
import { STOPPED_TURN_GRACE_MS } from './threads/turn.ts';
import { stopTurnsBeforeTheDrainEnds } from './shutdown-turns.ts';
import { InProcessTurnLock, type TurnLock } from './threads/turn-lock.ts';

/** Headers of the service's error answers a browser page may read (none is CORS-safelisted). */
const ANSWER_HEADERS = ['retry-after', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'www-authenticate'];

/** Mastra's default cap on a request handler, kept for every route unless a turn or a transcription may take longer. */
const MASTRA_HANDLER_TIMEOUT_MS = 180_000;
/** How much sooner than that cap a turn or a transcription answers its own timeout. */
const OWN_ANSWER_MARGIN_MS = 5_000;

/**
 * How `npm start` serves the Mastra instance: no Studio, and no browser-stream
 * WebSocket route (Mastra registers it ahead of every middleware, so the route
 * gate could not close it; the companion has no browser tool).
 */
export const SERVER_OPTIONS = { tools: {}, studio: false, browserStream: false };

/**
 * Parts a test may swap: the speech engine (a recording fake) and the upload limits, so route
 * behaviour is tested without a recogniser or 25 MB of audio. Production passes none.
 */
export interface CompanionOverrides {
  stt?: Partial<Pick<SttRouteDeps, 'engine' | 'maxBytes' | 'maxSeconds' | 'timeoutMs'>> & {
    /** The folder the service's scratch folder is made in (src/stt/scratch-folder.ts); the system's temporary folder by default. */
    tempDir?: string;
  };
}

/** The service's parts, and how to let go of their connections (tests, graceful shutdown). */
export interface Companion {
  mastra: Mastra;
  /** The turns running now, which a shutdown stops and waits for. */
  runningTurns: RunningTurns;
  close(): Promise<void>;
}

/** `/stt` can work: its engine, and a scratch folder to receive uploads in. */
async function sttReadiness(engine: SttEngine, scratch: string): Promise<EngineReadiness> {
  const problem = await scratchProblem(scratch);
  return problem ? { ok: false, detail: problem } : engine.readiness();
}

/** A temporary folder the service cannot write must not stop it: `/stt` alone needs one, and says so when it fails. */
function scratchFolder(parent: string, logger: IMastraLogger): ScratchFolder {
  try {
    return openScratchFolder(parent);
  } catch (error) {
    logger.warn('no scratch folder: /stt will fail until the temporary folder can be written', { folder: parent, error: (error as Error).message });
    return scratchFolderLater(parent);
  }
}

/**
 * Turn order across replicas needs the store's help: PostgreSQL advisory locks.
 * The other stores are opened by one process (a LibSQL file), or by replicas the
 * README asks to keep on one thread each; their turns are ordered in process.
 */
function createTurnLock(config: Config, logger: IMastraLogger): TurnLock {
  const local = new InProcessTurnLock({ maxQueued: config.turns.maxQueued });
  if (!config.databaseUrl || !isPostgresUrl(config.databaseUrl)) return local;
  return new PostgresTurnLock(config.databaseUrl, local, {
    onConnectionError: (error) =>
      outsideRequests(() => logger.warn('turn lock connection lost; the turns holding its locks were stopped', { error: error.message })),
  });
}

/** Several replicas on one PostgreSQL share each client's count; otherwise it is counted in process. */
function createRateLimitStore(config: Config, logger: IMastraLogger): PostgresRateLimitStore | undefined {
  if (!config.databaseUrl || !isPostgresUrl(config.databaseUrl)) return undefined;
  return new PostgresRateLimitStore(config.databaseUrl, (error) =>
    logger.warn('rate limit store unavailable; counting in this process until it answers', { error: error.message }),
  );
}

/** Studio (development only) must load its page before its user can give it a token. */
function publicRequests(config: Config) {
  return config.server.mode === 'development' ? studioShell(PUBLIC_ROUTES) : undefined;
}

/** The security middleware in order: who is calling, then how often. */
function securityMiddleware(config: Config, auth: ReturnType<typeof createAuthProvider>, rateLimitStore: Store | undefined) {
  return [
    ...(auth ? [authenticate({ provider: auth, isPublicRequest: publicRequests(config) })] : []),
    rateLimit({ ...config.rateLimit, store: rateLimitStore }),
  ];
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

/**
 * Mastra, whose shutdown first waits for the turns still running. On SIGTERM it comes once the server's drain has
 * ended: a turn still running then was stopped a moment before (shutdown-turns.ts), or lost its connection, and is
 * storing its reply as far as it got (a stopped turn's grace at most), which the process must not exit before.
 * Then the service's own stores are closed, on every way out (Mastra's closes none): a LibSQL file closed folds its
 * write-ahead log back in, so after a stop the file alone holds every turn (README "Backups of the database").
 */
class CompanionMastra extends Mastra {
  readonly #running: RunningTurns;
  readonly #closeStores: () => Promise<unknown>;

  constructor(options: ConstructorParameters<typeof Mastra>[0], running: RunningTurns, closeStores: () => Promise<unknown>) {
    super(options);
    this.#running = running;
    this.#closeStores = closeStores;
  }

  override async shutdown(options?: Parameters<Mastra['shutdown']>[0]) {
    await this.#running.allEnded(STOPPED_TURN_GRACE_MS);
    await super.shutdown(options);
    await this.#closeStores();
  }
}

/** A shutdown may come twice (a signal, then a host's `close()`): what it closes is closed once. */
function once<T>(run: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= run());
}

/** The Mastra instance the entry points serve (`npm start`, the built output, `mastra dev`), which a signal stops. */
export async function createMastra(config: Config): Promise<Mastra> {
  const { mastra, runningTurns } = await createCompanion(config);
  stopTurnsBeforeTheDrainEnds(runningTurns, config.server.drainTimeoutMs);
  return mastra;
}

export async function createCompanion(config: Config, overrides: CompanionOverrides = {}): Promise<Companion> {
  const logger = createLogger({ level: config.logLevel, format: config.logFormat });
  const tracing = config.tracing && (await createTracing({ storePath: config.tracing.storePath, logger }));
  const storage = createStorage(config.databaseUrl, logger);
  const memory = createMemory(storage, config.memory);
  const rateLimitStore = createRateLimitStore(config, logger);
  const turnLock = createTurnLock(config, logger);
  const runningTurns = new RunningTurns();
  const mastraDeletions = queueMastraDeletions(turnLock);
  const agent = createCompanionAgent({
    model: config.model,
    modelMaxRetries: config.modelMaxRetries,
    modelMaxOutputTokens: config.modelMaxOutputTokens,
    openMeteo: config.openMeteo,
    memory,
    logger,
  });
  const errors = createErrorHandlers({ isDevelopment: config.isDevelopment });
  const auth = createAuthProvider(config.auth);
  const routeGate = createRouteGate({ mode: config.server.mode, authenticated: auth !== undefined });
  const scratch = scratchFolder(overrides.stt?.tempDir ?? tmpdir(), logger);
  const sttEngine = overrides.stt?.engine ?? createSttEngine(config.stt, {
    local: () => createLocalEngine({ ...config.stt.local, vocabulary: companionVocabulary(), tempDir: scratch.path }),
  });
  const stt = createSttRoute({
    engine: sttEngine,
    maxBytes: MAX_AUDIO_BYTES,
    maxSeconds: config.stt.maxAudioSeconds,
    timeoutMs: config.stt.timeoutMs,
    isDevelopment: config.isDevelopment,
    ...overrides.stt,
    tempDir: scratch.path,
  });

  const mastra = new CompanionMastra({
    agents: { [COMPANION_AGENT_ID]: agent },
    storage: mastraStore(tracing),
    ...(tracing && { observability: tracing.observability }),
    logger,
    server: {
      port: config.server.port,
      host: config.server.host,
      // Mastra answers a handler that outlives this, on every route, with its own 504; a turn and a transcription
      // answer their own timeouts first.
      timeout: Math.max(MASTRA_HANDLER_TIMEOUT_MS, Math.max(config.turns.timeoutMs, config.stt.timeoutMs) + OWN_ANSWER_MARGIN_MS),
      // On SIGTERM, running turns have this long to finish before their connections are closed.
      drainTimeout: config.server.drainTimeoutMs,
      // Mastra's own routes check `auth` themselves; our middleware and SPEC routes use the same provider.
      auth,
      // Ours run after Mastra's context, CORS and /health, before every route handler.
      middleware: [
        traceId,
        queryGuard,
        createReadyRoute({ store: storeCheck(storage), model: modelCheck(config.model), [`stt-${sttEngine.name}`]: () => sttReadiness(sttEngine, scratch.path) }),
        errors.envelope,
        routeGate,
        ...securityMiddleware(config, auth, rateLimitStore),
        threadClaimGuard(),
        // Mastra's own memory and conversation routes, which production closes: Studio's deletions.
        ...MASTRA_DELETION_PATHS.map((path) => ({ path, handler: mastraDeletions })),
        ...createAgentRoutes({
          modelConfigured: Boolean(config.model),
          mode: config.server.mode,
          turns: { lock: turnLock, running: runningTurns, timeoutMs: config.turns.timeoutMs, idleTimeoutMs: config.turns.idleTimeoutMs },
          stream: config.stream,
        }),
        ...threadMiddleware,
        stt.middleware,
        specOpenAPIDocument({
          mode: config.server.mode,
          authenticated: auth !== undefined,
        }),
      ],
      onError: errors.onError,
      onValidationError: errors.onValidationError,
      build: { openAPIDocs: true },
      bodySizeLimit: MAX_BODY_BYTES,
      // Browser clients need to read the ids the SPEC routes answer with, how long a 429 asks them to wait, and a 401's challenge.
      cors: { origin: createCorsOrigin(config.cors), exposeHeaders: [TRACE_HEADER, THREAD_HEADER, ...ANSWER_HEADERS] },
      apiRoutes: [
        ...createThreadRoutes(errors.specErrors, turnLock),
        stt.route,
        ...createDocsRoutes(),
      ],
    },
  }, runningTurns, once(() => Promise.all([storage?.close(), rateLimitStore?.close(), turnLock.close(), sttEngine.close(), tracing?.close()]).finally(scratch.remove)));
  // Before Mastra's CORS and /health: a health probe is enough to give the server its read timeouts, and CORS
  // answers only the preflights of served routes. Outside Mastra's handler timeout, so a request it answers still
  // gets its access line.
  mastra.setServerMiddleware([
    { path: '*', handler: accessLog },
    { path: '*', handler: discardUnreadBody() },
    ...(config.server.mode === 'development' ? [{ path: '*', handler: localHostGuard(traceId) }] : []),
    { path: '*', handler: leaveFramingToNode },
    { path: '*', handler: readTimeouts(config.server) },
    { path: '*', handler: optionsThrough(routeGate, traceId) },
  ]);
  return {
    mastra,
    runningTurns,
    async close() {
      // Mastra's own teardown too: each instance registers a hook in a module-level registry that only
      // shutdown() removes, so a closed app would otherwise stay in memory for the life of the process.
      await mastra.shutdown();
    },
  };
}

/** The whole service as one in-process Hono app (`app.request()` / `app.fetch`), exactly as `npm start` serves it. */
export async function createApp(config: Config, overrides: CompanionOverrides = {}) {
  const companion = await createCompanion(config, overrides);
  const app = await createHonoServer(companion.mastra, SERVER_OPTIONS);
  return { ...companion, app };
}
