/**
 * @module The service's whole configuration: one typed object, parsed from the
 * environment (and a `.env` file when present) by the entry points only
 * (`src/server.ts`, `src/mastra/index.ts`), then handed to the composition root.
 * Every key is documented in `.env.example`; an empty value means "unset", so a
 * copied `.env.example` starts the service; bad values stop start-up with one
 * message naming each bad key. Relative paths are resolved against the project
 * root, never the working directory, so `npm start`, `npm run dev` (which runs in
 * `src/mastra/public`) and the built output share one database and one `.env`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import type { CorsOriginOptions } from './src/security/cors-origin.ts';
import type { ServerMode } from './src/security/route-gate.ts';

const optionalString = z.string().trim().optional();

/** The stores `DATABASE_URL` can name (see src/mastra/storage.ts), by URL scheme. */
const DATABASE_KINDS = {
  'file:': 'libsql-file',
  'libsql:': 'libsql-server',
  'http:': 'libsql-server',
  'https:': 'libsql-server',
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
} as const;
export type DatabaseKind = (typeof DATABASE_KINDS)[keyof typeof DATABASE_KINDS];
export const DATABASE_SCHEMES_TEXT = 'file:, libsql://, http(s):// or postgres(ql)://';

export function schemeOf(url: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();
}

/** The store a `DATABASE_URL` names, by its scheme; `undefined` for a scheme no store takes. */
export function databaseKindOf(url: string): DatabaseKind | undefined {
  const scheme = schemeOf(url);
  return scheme !== undefined && Object.hasOwn(DATABASE_KINDS, scheme) ? DATABASE_KINDS[scheme as keyof typeof DATABASE_KINDS] : undefined;
}

/**
 * An http(s) URL of a server the service calls. A user name or password in it would go out in every error
 * message that names the URL (fetch refuses such a URL on every call, naming it); a key goes in its own setting.
 */
const serverUrl = z
  .url({ protocol: /^https?$/ })
  .refine((url) => !holdsCredentials(url), {
    error: 'must not hold a user name or password (user:password@): fetch refuses such a URL; give a key in its own setting',
  });

/** Whether a URL names a user or password; text that is no URL is another refinement's to refuse. */
function holdsCredentials(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { username, password } = new URL(text);
  return Boolean(username || password);
}

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4111),
  HOST: z.string().trim().min(1).default('localhost'),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: serverUrl.optional(),
  OPENAI_API: z.enum(['chat', 'responses']).default('chat'),
  MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
  MODEL_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  // Where local files live (the LibSQL database, traces), relative to the project root.
  DATA_DIR: z.string().trim().min(1).default('data'),
  // Default: file:<DATA_DIR>/companion.db. A relative file: path is relative to the project root.
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    // Checked here, not only in createStorage, so a typo stops start-up alongside every other bad key.
    .refine((url) => url === undefined || url === 'none' || databaseKindOf(url) !== undefined, {
      error: `must start with ${DATABASE_SCHEMES_TEXT}, or be "none" to switch storage off`,
    })
    // A LibSQL server is called with fetch, as every other server (PostgreSQL takes its password in the URL).
    .refine((url) => !url || databaseKindOf(url) !== 'libsql-server' || !holdsCredentials(url), {
      error: 'a LibSQL server URL must not hold a user name or password (user:password@); give its token as ?authToken=',
    }),
  MEMORY_LAST_MESSAGES: z.coerce.number().int().min(1).max(1000).default(20),
  OPEN_METEO_GEOCODING_URL: serverUrl.default('https://geocoding-api.open-meteo.com'),
  OPEN_METEO_FORECAST_URL: serverUrl.default('https://api.open-meteo.com'),
  STREAM_KEEPALIVE_MS: z.coerce.number().int().min(10).max(300_000).default(15_000),
  // Turns and limits (README "Turns and limits"): every turn and every connection is bounded in time and memory.
  MODEL_IDLE_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(60_000),
  MODEL_TIMEOUT_MS: z.coerce.number().int().min(10).max(3_600_000).default(180_000),
  MAX_QUEUED_TURNS: z.coerce.number().int().min(0).max(1000).default(10),
  STREAM_WRITE_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(30_000),
  MODEL_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(1).max(1_000_000).default(4096),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  // How long SIGTERM lets running turns finish before their connections are closed (Mastra's default is 5 s).
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(30_000),
  TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // Authentication: off when neither a secret nor a JWKS URL is set (local use).
  MASTRA_JWT_SECRET: z.string().min(32, 'must be at least 32 characters (HS256 needs a 256-bit secret)').optional(),
  AUTH_JWKS_URL: serverUrl.optional(),
  AUTH_ISSUER: optionalString,
  AUTH_AUDIENCE: optionalString,
  // Rate limiting per client (token subject, else address); 0 switches it off.
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(0).max(100_000).default(60),
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  // Speech-to-text (POST /stt): see sttConfig below.
  STT_PROVIDER: z.enum(['openai', 'local']).optional(),
  STT_MODEL: z.string().trim().min(1).default('whisper-1'),
  STT_BASE_URL: serverUrl.optional(),
  STT_API_KEY: optionalString,
  // The local engine (PocketSphinx): its model folder, and how many decoder processes (each about 180 MB) it may run.
  STT_LOCAL_MODEL_DIR: optionalString,
  STT_LOCAL_WORKERS: z.coerce.number().int().min(1).max(16).optional(),
  // An hour: 25 MB of MP3 at 64 kbps or of a 64 kbps AAC voice memo is 55 min, of 16 kHz WAV 14 min.
  STT_MAX_AUDIO_SECONDS: z.coerce.number().int().min(1).max(36_000).default(3600),
  // 30 min: the local engine's hour of audio (STT_MAX_AUDIO_SECONDS) takes up to ~25 min on a busy 2-core machine.
  STT_TIMEOUT_MS: z.coerce.number().int().min(1000).max(7_200_000).default(1_800_000),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  // json (one line per event, for log shippers) | pretty (for people); default: pretty in development only.
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  // The exposed surface (README "Security"): which routes answer, and which browser origins may call them.
  SERVER_MODE: z.enum(['production', 'development']).optional(),
  CORS_ORIGINS: z
    .string()
    .transform((list) => list.split(',').map((origin) => origin.trim()).filter(Boolean))
    .pipe(z.array(z.string().refine(isOrigin, { error: (issue) => `"${issue.input}" is not an origin like https://app.example.com` })))
    .optional(),
  // Mastra traces (spans of every turn, tool call and model call) in a local DuckDB file, shown by
  // Studio. Default: on under `npm run dev`, off otherwise (each span costs a little time and disk).
  TRACING: z.enum(['on', 'off']).optional(),
  // Mastra's own switch for the usage analytics it sends its maintainers; unlike Mastra, off unless set to false.
  MASTRA_TELEMETRY_DISABLED: z.stringbool().default(true),
});

/** Every configuration key, as `.env.example` and the README list them. */
export const CONFIG_KEYS = Object.keys(EnvSchema.shape);

function isOrigin(text: string): boolean {
  return URL.canParse(text) && new URL(text).origin === text;
}

/** `SERVER_MODE=development` opens the framework's routes for Studio, so it only binds to this machine. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '::1'];

export type Env = z.infer<typeof EnvSchema>;

/**
 * Rules across keys, in the same message as every other bad key: zod skips an object's refinements once any
 * key has failed, so each rule runs whenever its own keys are valid. `underMastraDev`: see `serverModeOf`.
 */
function checkedEnvSchema(underMastraDev: boolean) {
  const whenValid = (keys: (keyof Env)[]) => (payload: z.core.ParsePayload) =>
    !payload.issues.some((issue) => keys.includes(issue.path?.[0] as keyof Env));
  return EnvSchema
    // Node refuses a headers timeout longer than the request timeout that contains it.
    .refine((env) => env.HEADERS_TIMEOUT_MS <= env.REQUEST_TIMEOUT_MS, {
      path: ['HEADERS_TIMEOUT_MS'],
      error: 'must not be longer than REQUEST_TIMEOUT_MS',
      when: whenValid(['HEADERS_TIMEOUT_MS', 'REQUEST_TIMEOUT_MS']),
    })
    .refine((env) => serverModeOf(env, underMastraDev) === 'production' || LOOPBACK_HOSTS.includes(env.HOST), {
      path: ['HOST'],
      error: `development mode opens Mastra's own routes for Studio; bind it to ${LOOPBACK_HOSTS.join(', ')}`,
      when: whenValid(['HOST', 'SERVER_MODE']),
    })
    .refine((env) => sttServerOf(env) !== undefined, {
      path: ['STT_PROVIDER'],
      error: 'openai needs STT_API_KEY or OPENAI_API_KEY, or STT_BASE_URL for a speech server without keys',
      when: whenValid(['STT_PROVIDER', 'STT_API_KEY', 'STT_BASE_URL', 'OPENAI_API_KEY', 'OPENAI_BASE_URL']),
    })
    // An identity provider signs the tokens of every application at its tenant with the same keys: the
    // audience is what tells this API's tokens from the others' (the issuer is the same for all of them).
    .refine((env) => !env.AUTH_JWKS_URL || env.AUTH_AUDIENCE, {
      path: ['AUTH_AUDIENCE'],
      error: "is required with AUTH_JWKS_URL: the `aud` the identity provider puts in this API's tokens",
      when: whenValid(['AUTH_JWKS_URL', 'AUTH_AUDIENCE']),
    })
    // Set alone, either would look like a check while authentication is off (or checks HS256 tokens, which it never does).
    .refine((env) => env.AUTH_JWKS_URL || !env.AUTH_ISSUER, {
      path: ['AUTH_ISSUER'],
      error: JWKS_ONLY,
      when: whenValid(['AUTH_JWKS_URL', 'AUTH_ISSUER']),
    })
    .refine((env) => env.AUTH_JWKS_URL || !env.AUTH_AUDIENCE, {
      path: ['AUTH_AUDIENCE'],
      error: JWKS_ONLY,
      when: whenValid(['AUTH_JWKS_URL', 'AUTH_AUDIENCE']),
    });
}

const JWKS_ONLY = 'applies to tokens verified by AUTH_JWKS_URL, which is not set';

/** `mastra dev` (npm run dev) marks its server process with MASTRA_DEV=true; everything else is production. */
function serverModeOf(e: Pick<Env, 'SERVER_MODE'>, underMastraDev: boolean): ServerMode {
  return e.SERVER_MODE ?? (underMastraDev ? 'development' : 'production');
}

export interface Config {
  /** Where to listen; `mode` decides which routes answer and what a native client may send (src/security/route-gate.ts);
   * how long a client may take to send a request's headers, and the whole request. */
  server: { port: number; host: string; mode: ServerMode; headersTimeoutMs: number; requestTimeoutMs: number; drainTimeoutMs: number };
  cors: CorsOriginOptions;
  /** `undefined` when neither an API key nor a base URL is set: the service starts, model calls fail clearly. */
  model:
    | { apiKey: string; baseURL: string | undefined; api: 'chat' | 'responses'; id: string }
    | undefined;
  modelMaxRetries: number;
  /** The most tokens one model call may write (`maxOutputTokens`). */
  modelMaxOutputTokens: number;
  /** `undefined` when storage is switched off (`DATABASE_URL` empty or `none`); a `file:` URL is always absolute. */
  databaseUrl: string | undefined;
  /** Where traces are kept; `undefined` when tracing is off. */
  tracing: { storePath: string } | undefined;
  memory: { lastMessages: number };
  /**
   * Bounds of one turn: its whole time, queue wait included (`timeoutMs`); how long the model may
   * send nothing (`idleTimeoutMs`); how many turns may wait behind a thread's running one (`maxQueued`).
   */
  turns: { timeoutMs: number; idleTimeoutMs: number; maxQueued: number };
  /** SSE comment interval on an idle stream, and how long one write may wait for a client that stopped reading. */
  stream: { keepAliveMs: number; writeTimeoutMs: number };
  openMeteo: { geocodingUrl: string; forecastUrl: string; timeoutMs: number };
  /** Both unset: no authentication. */
  auth: { jwtSecret?: string; jwks?: { jwksUrl: string; issuer?: string; audience: string } };
  rateLimit: { perMinute: number; trustProxy: boolean };
  stt: SttConfig;
  logLevel: Env['LOG_LEVEL'];
  logFormat: 'json' | 'pretty';
  isDevelopment: boolean;
  /** Whether Mastra may report feature usage to its maintainers' analytics service (applied by `loadConfig`). */
  mastraTelemetry: boolean;
}

/** Empty (or blank) values count as unset, so `KEY=` in a copied `.env.example` means "use the default". */
function withoutEmptyValues(env: Record<string, string | undefined>) {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => !isBlank(value)));
}

/** Unset, empty or only whitespace: what the configuration reads as unset (also in the AI SDK's variables). */
function isBlank(value: string | undefined): boolean {
  return value === undefined || value.trim() === '';
}

/**
 * The folder of the nearest `package.json` named companion-agent above `from`: the
 * checkout, whether this module runs from source or from a build in `.mastra/output`.
 * A built output deployed on its own has none: its working directory is the root then.
 */
export function findProjectRoot(from: string = import.meta.dirname, fallback: string = process.cwd()): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (packageNameIn(dir) === 'companion-agent') return dir;
    if (dirname(dir) === dir) return fallback;
  }
}

function packageNameIn(dir: string): string | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).name;
  } catch {
    return undefined;
  }
}

/** A relative `file:` URL made absolute against `root`; other URLs (servers, `file://`, `:memory:`) as given. */
function resolveFileUrl(url: string, root: string): string {
  if (schemeOf(url) !== 'file:') return url;
  const path = url.slice('file:'.length);
  if (path.startsWith('//') || path === ':memory:' || isAbsolute(path)) return url;
  return `file:${resolve(root, path)}`;
}

/**
 * Unset: the LibSQL file in `dataDir`. Empty or `none`: storage off. The one key whose empty value is
 * not its default: a deployment that blanks the database out means no database, not a local file.
 */
function databaseUrlOf(raw: string | undefined, dataDir: string, root: string): string | undefined {
  const url = raw?.trim();
  if (url === '' || url === 'none') return undefined;
  return url === undefined ? `file:${join(dataDir, 'companion.db')}` : resolveFileUrl(url, root);
}

function invalidConfiguration(problems: string[]) {
  return new Error(`Invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
}

/**
 * `env` is the environment (`MASTRA_DEV=true` is how `mastra dev` marks its server);
 * `projectRoot` anchors relative paths (tests give their own).
 */
export function parseConfig(env: Record<string, string | undefined>, projectRoot: string = findProjectRoot()): Config {
  const underMastraDev = env.MASTRA_DEV === 'true';
  const parsed = checkedEnvSchema(underMastraDev).safeParse(withoutEmptyValues(env));
  if (!parsed.success) throw invalidConfiguration(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  const e = parsed.data;
  const mode = serverModeOf(e, underMastraDev);
  const hasModel = Boolean(e.OPENAI_API_KEY || e.OPENAI_BASE_URL);
  const dataDir = resolve(projectRoot, e.DATA_DIR);
  const tracing = (e.TRACING ?? (underMastraDev ? 'on' : 'off')) === 'on';
  return {
    server: {
      port: e.PORT,
      host: e.HOST,
      mode,
      headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
      drainTimeoutMs: e.SHUTDOWN_DRAIN_MS,
    },
    cors: { origins: e.CORS_ORIGINS ?? [], allowLoopback: !e.CORS_ORIGINS && mode === 'development' },
    model: hasModel
      ? {
          // Local OpenAI-compatible servers (Ollama, LM Studio, vLLM) need no key, but the client requires one.
          apiKey: e.OPENAI_API_KEY ?? 'not-needed',
          baseURL: e.OPENAI_BASE_URL,
          api: e.OPENAI_API,
          id: e.MODEL,
        }
      : undefined,
    modelMaxRetries: e.MODEL_MAX_RETRIES,
    modelMaxOutputTokens: e.MODEL_MAX_OUTPUT_TOKENS,
    // The raw value: its emptiness is a choice here (checked above when it is not empty).
    databaseUrl: databaseUrlOf(env.DATABASE_URL, dataDir, projectRoot),
    tracing: tracing ? { storePath: join(dataDir, 'traces.duckdb') } : undefined,
    memory: { lastMessages: e.MEMORY_LAST_MESSAGES },
    turns: { timeoutMs: e.MODEL_TIMEOUT_MS, idleTimeoutMs: e.MODEL_IDLE_TIMEOUT_MS, maxQueued: e.MAX_QUEUED_TURNS },
    stream: { keepAliveMs: e.STREAM_KEEPALIVE_MS, writeTimeoutMs: e.STREAM_WRITE_TIMEOUT_MS },
    openMeteo: {
      geocodingUrl: e.OPEN_METEO_GEOCODING_URL.replace(/\/$/, ''),
      forecastUrl: e.OPEN_METEO_FORECAST_URL.replace(/\/$/, ''),
      timeoutMs: e.TOOL_TIMEOUT_MS,
    },
    auth: {
      jwtSecret: e.MASTRA_JWT_SECRET,
      // The schema refuses a JWKS URL without an audience: the second test only tells the types so.
      jwks: e.AUTH_JWKS_URL && e.AUTH_AUDIENCE ? { jwksUrl: e.AUTH_JWKS_URL, issuer: e.AUTH_ISSUER, audience: e.AUTH_AUDIENCE } : undefined,
    },
    rateLimit: { perMinute: e.RATE_LIMIT_PER_MINUTE, trustProxy: e.TRUST_PROXY === 'true' },
    stt: sttConfig(e, projectRoot),
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? (e.NODE_ENV === 'development' ? 'pretty' : 'json'),
    isDevelopment: e.NODE_ENV === 'development',
    mastraTelemetry: !e.MASTRA_TELEMETRY_DISABLED,
  };
}

/**
 * The speech-to-text engine: `openai` (any server with OpenAI's `/audio/transcriptions`) or `local` (embedded,
 * offline, no key). Without STT_PROVIDER, `openai` as soon as a key or a speech server is configured.
 */
export type SttConfig = (
  | { provider: 'openai'; apiKey: string; baseURL: string | undefined; model: string; maxRetries: number }
  | { provider: 'local' }
) & {
  local: { modelDir?: string; workers?: number };
  /** The longest audio accepted, in seconds. */
  maxAudioSeconds: number;
  /** The most one transcription may take, from its request's arrival (upload included) to its answer. */
  timeoutMs: number;
};

function sttConfig(e: Env, root: string): SttConfig {
  // Relative to the project root, as every path is (`npm run dev` runs elsewhere).
  const local = { modelDir: e.STT_LOCAL_MODEL_DIR && resolve(root, e.STT_LOCAL_MODEL_DIR), workers: e.STT_LOCAL_WORKERS };
  const common = { local, maxAudioSeconds: e.STT_MAX_AUDIO_SECONDS, timeoutMs: e.STT_TIMEOUT_MS };
  const server = sttServerOf(e);
  if (server === 'local') return { provider: 'local', ...common };
  // Checked by the schema: openai has a key or a server.
  const { apiKey, baseURL } = server!;
  // Self-hosted servers (faster-whisper-server, LocalAI, vLLM) need no key, but the client requires one.
  return { provider: 'openai', apiKey: apiKey ?? 'not-needed', baseURL, model: e.STT_MODEL, maxRetries: e.MODEL_MAX_RETRIES, ...common };
}

type SttKeys = Pick<Env, 'STT_PROVIDER' | 'STT_API_KEY' | 'STT_BASE_URL' | 'OPENAI_API_KEY' | 'OPENAI_BASE_URL'>;

/** `local`, the OpenAI-compatible server speech goes to (its key, if any), or `undefined` for openai with neither. */
function sttServerOf(e: SttKeys): 'local' | { apiKey: string | undefined; baseURL: string | undefined } | undefined {
  const provider = e.STT_PROVIDER ?? (e.STT_API_KEY || e.STT_BASE_URL || e.OPENAI_API_KEY ? 'openai' : 'local');
  if (provider === 'local') return 'local';
  // A separate speech server never receives the chat key: OPENAI_API_KEY belongs to OPENAI_BASE_URL (or OpenAI).
  const baseURL = e.STT_BASE_URL ?? e.OPENAI_BASE_URL;
  const apiKey = e.STT_BASE_URL ? e.STT_API_KEY : (e.STT_API_KEY ?? e.OPENAI_API_KEY);
  return apiKey || baseURL ? { apiKey, baseURL } : undefined;
}

/** Settings `@ai-sdk/openai` also reads from the environment. */
const AI_SDK_ENV_KEYS = ['OPENAI_API_KEY', 'OPENAI_BASE_URL'] as const;

/**
 * The environment's configuration, for the entry points, with the project root's
 * `.env` (variables already set win; `MASTRA_SKIP_DOTENV=true`, Mastra's own switch,
 * skips it). A bad configuration is an operator's mistake, not a crash: one
 * message, exit 1, no stack trace. An entry point calls it before it imports the
 * service (`@ai-sdk/openai` reads the environment as it loads).
 */
export function loadConfig(): Config {
  const root = findProjectRoot();
  const envFile = join(root, '.env');
  const skipEnvFile = ['true', '1'].includes(process.env.MASTRA_SKIP_DOTENV ?? '');
  if (!skipEnvFile && existsSync(envFile)) process.loadEnvFile(envFile);
  try {
    const config = parseConfig(process.env);
    // Mastra reads its switch from the environment, and reports usage from every server it starts unless it is set.
    process.env.MASTRA_TELEMETRY_DISABLED = String(!config.mastraTelemetry);
    // The AI SDK reads these itself, and refuses a blank base URL as it loads: blank means unset for it too.
    for (const key of AI_SDK_ENV_KEYS) if (isBlank(process.env[key])) delete process.env[key];
    return config;
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
