/**
 * @module The service's whole configuration: one typed object, parsed from the
 * environment (and a `.env` file when present) by the entry points only
 * (`src/server.ts`, `src/mastra/index.ts`), then handed to the composition root.
 * Every key is documented in `.env.example`; an empty value means "unset", so a
 * copied `.env.example` starts the service; bad values stop start-up with one
 * message naming each bad key.
 */
import { existsSync } from 'node:fs';
import { z } from 'zod';

const optionalString = z.string().trim().optional();

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
    .refine((url) => url === 'none' || DATABASE_SCHEMES.includes(schemeOf(url) ?? ''), {
      error: `must start with ${DATABASE_SCHEMES_TEXT}, or be "none" to switch storage off`,
    }),
  MEMORY_LAST_MESSAGES: z.coerce.number().int().min(1).max(1000).default(20),
  OPEN_METEO_GEOCODING_URL: z.url({ protocol: /^https?$/ }).default('https://geocoding-api.open-meteo.com'),
  OPEN_METEO_FORECAST_URL: z.url({ protocol: /^https?$/ }).default('https://api.open-meteo.com'),
  STREAM_KEEPALIVE_MS: z.coerce.number().int().min(10).max(300_000).default(15_000),
  MODEL_IDLE_TIMEOUT_MS: z.coerce.number().int().min(10).max(600_000).default(60_000),
  TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
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
  modelMaxRetries: number;
  /** `undefined` when storage is switched off (`DATABASE_URL=none`). */
  databaseUrl: string | undefined;
  memory: { lastMessages: number };
  /** SSE comment interval on an idle stream, and how long a run may go without any chunk before it fails. */
  stream: { keepAliveMs: number; idleTimeoutMs: number };
  openMeteo: { geocodingUrl: string; forecastUrl: string; timeoutMs: number };
  logLevel: Env['LOG_LEVEL'];
  isDevelopment: boolean;
}

/** Empty (or blank) values count as unset, so `KEY=` in a copied `.env.example` means "use the default". */
function withoutEmptyValues(env: Record<string, string | undefined>) {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
}

export function parseConfig(env: Record<string, string | undefined>): Config {
  const parsed = EnvSchema.safeParse(withoutEmptyValues(env));
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
    databaseUrl: e.DATABASE_URL === 'none' ? undefined : e.DATABASE_URL,
    memory: { lastMessages: e.MEMORY_LAST_MESSAGES },
    stream: { keepAliveMs: e.STREAM_KEEPALIVE_MS, idleTimeoutMs: e.MODEL_IDLE_TIMEOUT_MS },
    openMeteo: {
      geocodingUrl: e.OPEN_METEO_GEOCODING_URL.replace(/\/$/, ''),
      forecastUrl: e.OPEN_METEO_FORECAST_URL.replace(/\/$/, ''),
      timeoutMs: e.TOOL_TIMEOUT_MS,
    },
    logLevel: e.LOG_LEVEL,
    isDevelopment: e.NODE_ENV === 'development',
  };
}

/**
 * The environment's configuration, for the entry points. A bad configuration is
 * an operator's mistake, not a crash: one message, exit 1, no stack trace.
 */
export function loadConfig(): Config {
  if (existsSync('.env')) process.loadEnvFile('.env');
  try {
    return parseConfig(process.env);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
}
