import { existsSync } from 'node:fs';
import { z } from 'zod';

/**
 * The service's whole configuration: one typed object, parsed once from the
 * environment (and a `.env` file when present). Every key is documented in
 * `.env.example`; bad values stop start-up with one message naming each bad key.
 */
const optionalString = z
  .string()
  .trim()
  .transform((value) => value || undefined)
  .optional();

/** The stores `DATABASE_URL` can name (see src/mastra/storage.ts), by URL scheme. */
export const DATABASE_SCHEMES = ['file:', 'libsql:', 'http:', 'https:', 'postgres:', 'postgresql:'];
export const DATABASE_SCHEMES_TEXT = 'file:, libsql://, http(s):// or postgres(ql)://';

export function schemeOf(url: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:/i.exec(url)?.[0].toLowerCase();
}

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4111),
  HOST: z.string().trim().min(1).default('localhost'),
  OPENAI_API_KEY: optionalString,
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_API: z.enum(['chat', 'responses']).default('chat'),
  MODEL: z.string().trim().min(1).default('gpt-4o-mini'),
  MODEL_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(2),
  DATABASE_URL: z
    .string()
    .trim()
    .default('file:./data/companion.db')
    // Checked here, not only in createStorage, so a typo stops start-up alongside every other bad key.
    .refine((url) => url === '' || url === 'none' || DATABASE_SCHEMES.includes(schemeOf(url) ?? ''), {
      error: `must start with ${DATABASE_SCHEMES_TEXT}, or be empty or "none" to switch storage off`,
    }),
  MEMORY_LAST_MESSAGES: z.coerce.number().int().min(1).max(1000).default(20),
  OPEN_METEO_GEOCODING_URL: z.url({ protocol: /^https?$/ }).default('https://geocoding-api.open-meteo.com'),
  OPEN_METEO_FORECAST_URL: z.url({ protocol: /^https?$/ }).default('https://api.open-meteo.com'),
  STREAM_KEEPALIVE_MS: z.coerce.number().int().min(10).max(300_000).default(15_000),
  MODEL_IDLE_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(60_000),
  TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  // Speech-to-text (POST /stt): see sttConfig below.
  STT_PROVIDER: z.enum(['openai', 'local']).optional(),
  STT_MODEL: z.string().trim().min(1).default('whisper-1'),
  STT_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  STT_API_KEY: optionalString,
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  server: { port: number; host: string };
  /** `undefined` when neither an API key nor a base URL is set: the service starts, model calls fail clearly. */
  model:
    | { apiKey: string; baseURL: string | undefined; api: 'chat' | 'responses'; id: string }
    | undefined;
  /** `undefined` when storage is switched off (`DATABASE_URL` empty or `none`). */
  modelMaxRetries: number;
  databaseUrl: string | undefined;
  memory: { lastMessages: number };
  /** SSE comment interval on an idle stream, and how long a run may go without any chunk before it fails. */
  stream: { keepAliveMs: number; idleTimeoutMs: number };
  openMeteo: { geocodingUrl: string; forecastUrl: string; timeoutMs: number };
  stt: SttConfig;
  logLevel: Env['LOG_LEVEL'];
  isDevelopment: boolean;
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  const hasModel = Boolean(e.OPENAI_API_KEY || e.OPENAI_BASE_URL);
  return {
    server: { port: e.PORT, host: e.HOST },
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
    databaseUrl: e.DATABASE_URL === '' || e.DATABASE_URL === 'none' ? undefined : e.DATABASE_URL,
    memory: { lastMessages: e.MEMORY_LAST_MESSAGES },
    stream: { keepAliveMs: e.STREAM_KEEPALIVE_MS, idleTimeoutMs: e.MODEL_IDLE_TIMEOUT_MS },
    openMeteo: {
      geocodingUrl: e.OPEN_METEO_GEOCODING_URL.replace(/\/$/, ''),
      forecastUrl: e.OPEN_METEO_FORECAST_URL.replace(/\/$/, ''),
      timeoutMs: e.TOOL_TIMEOUT_MS,
    },
    stt: sttConfig(e),
    logLevel: e.LOG_LEVEL,
    isDevelopment: e.NODE_ENV === 'development',
  };
}

/**
 * The speech-to-text engine: `openai` (any server with OpenAI's `/audio/transcriptions`) or `local` (embedded,
 * offline, no key). Without STT_PROVIDER, `openai` as soon as a key or a speech server is configured.
 */
export type SttConfig =
  | { provider: 'openai'; apiKey: string; baseURL: string | undefined; model: string; maxRetries: number }
  | { provider: 'local' };

function sttConfig(e: Env): SttConfig {
  const provider = e.STT_PROVIDER ?? (e.STT_API_KEY || e.STT_BASE_URL || e.OPENAI_API_KEY ? 'openai' : 'local');
  if (provider === 'local') return { provider };
  // A separate speech server never receives the chat key: OPENAI_API_KEY belongs to OPENAI_BASE_URL (or OpenAI).
  const baseURL = e.STT_BASE_URL ?? e.OPENAI_BASE_URL;
  const apiKey = e.STT_BASE_URL ? e.STT_API_KEY : (e.STT_API_KEY ?? e.OPENAI_API_KEY);
  if (!apiKey && !baseURL) {
    throw new Error('Invalid configuration:\n  STT_PROVIDER: openai needs STT_API_KEY or OPENAI_API_KEY, or STT_BASE_URL for a speech server without keys');
  }
  // Self-hosted servers (faster-whisper-server, LocalAI, vLLM) need no key, but the client requires one.
  return { provider, apiKey: apiKey ?? 'not-needed', baseURL, model: e.STT_MODEL, maxRetries: e.MODEL_MAX_RETRIES };
}

// A bad configuration is an operator's mistake, not a crash: one message, exit 1, no stack trace.
function loadConfig(): Config {
  if (existsSync('.env')) process.loadEnvFile('.env');
  try {
    return parseConfig(process.env);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}

export const config: Config = loadConfig();
