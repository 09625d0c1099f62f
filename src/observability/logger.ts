/**
 * @module The service's logger: Mastra's `PinoLogger`, one JSON line per event
 * in production (what log shippers expect) and pretty lines in development.
 * Whatever a library attaches to a logged error — the model request with the
 * system prompt and the user's words, response bodies, credentials — is
 * removed before it is written.
 */
import { PinoLogger } from '@mastra/loggers';
import type { LogLevel } from '@mastra/core/logger';

export type LogFormat = 'json' | 'pretty';

/** Fields that can carry prompts, conversation text, bodies or credentials, wherever an error object nests them. */
const SECRET_FIELDS = ['requestBodyValues', 'responseBody', 'data', 'prompt', 'messages', 'body', 'authorization', 'cookie', 'apiKey'];
const NESTING = ['', 'error.', 'err.', 'error.cause.', 'error.lastError.', 'error.cause.cause.', 'args.', 'error.data.'];

export const REDACTED_PATHS = NESTING.flatMap((prefix) => SECRET_FIELDS.map((field) => `${prefix}${field}`));

export function createLogger(options: { level: LogLevel; format: LogFormat }) {
  return new PinoLogger({
    name: 'companion-agent',
    level: options.level,
    prettyPrint: options.format === 'pretty',
    redact: { paths: REDACTED_PATHS, remove: true },
    formatters: { log: withoutModelServerText },
  });
}

/**
 * A failed model call (the AI SDK's `APICallError`, which Mastra's agent logs whole) carries the model server's
 * own words: its message, from the response body, is also the first line of its stack, and a 401's can quote part
 * of the key. Its status, URL and whether it may be retried are kept; the response headers (cookies) go too.
 */
function withoutModelServerText(entry: Record<string, unknown>): Record<string, unknown> {
  const error = entry.error as Record<string, unknown> | undefined;
  if (error?.name !== 'AI_APICallError') return entry;
  const { message: _message, stack: _stack, responseHeaders: _headers, ...rest } = error;
  return { ...entry, error: { ...rest, message: `The model server answered ${String(error.statusCode ?? 'nothing')}.` } };
}
