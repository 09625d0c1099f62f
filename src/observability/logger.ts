/**
 * @module The service's logger: Mastra's `PinoLogger`, one JSON line per event
 * in production (what log shippers expect) and pretty lines in development.
 * Whatever a library attaches to a logged error — the model request with the
 * system prompt and the user's words, response bodies, credentials — is
 * removed before it is written.
 */
import { PinoLogger } from '@mastra/loggers';
import type { LogLevel } from '@mastra/core/logger';
import { AI_SDK_ERROR_NAME } from '../contract/errors.ts';
import { currentTraceId } from './request-trace.ts';

export type LogFormat = 'json' | 'pretty';

/** Fields that can carry prompts, conversation text, bodies or credentials, wherever an error object nests them. */
const SECRET_FIELDS = ['requestBodyValues', 'responseBody', 'data', 'prompt', 'messages', 'body', 'authorization', 'cookie', 'apiKey'];
const NESTING = ['', 'error.', 'err.', 'error.cause.', 'error.lastError.', 'error.cause.cause.', 'args.', 'error.data.'];

/**
 * What Mastra's debug lines on a model step, an agent run or a tool call carry of the conversation: the reply, tool
 * calls and results, and the run's live objects (its tracing span holds the user's message and the system prompt).
 */
const CONVERSATION_FIELDS = ['text', 'reasoningText', 'toolCalls', 'toolResults', 'steps', 'result', 'tracing', 'tracingContext', 'loggerVNext', 'metrics'];

const REDACTED_PATHS = [...NESTING.flatMap((prefix) => SECRET_FIELDS.map((field) => `${prefix}${field}`)), ...CONVERSATION_FIELDS];

export function createLogger(options: { level: LogLevel; format: LogFormat }) {
  return new PinoLogger({
    name: 'companion-agent',
    level: options.level,
    prettyPrint: options.format === 'pretty',
    redact: { paths: REDACTED_PATHS, remove: true },
    formatters: { log: loggableEntry },
    mixin: withRequestTraceId,
  });
}

/** A log event as it may be written: a failed model call without the model server's words, a tool call without its arguments. */
export function loggableEntry(entry: Record<string, unknown>): Record<string, unknown> {
  return withoutToolArguments(withoutModelServerText(entry));
}

/** Every line written while a request is served names it, Mastra's own lines too. */
function withRequestTraceId(): object {
  const traceId = currentTraceId();
  return traceId ? { traceId } : {};
}

/**
 * A failed model call (an AI SDK error: `AI_APICallError`, `AI_RetryError`…), which Mastra logs whole,
 * whether as the error itself or as its `{message, stack}`, carries the model server's own words: its
 * message, from the response body, is also the first line of its stack, and a 401's can quote part of the
 * key. Its name, status, URL and whether it may be retried are kept; the response headers (cookies) go too.
 */
function withoutModelServerText(entry: Record<string, unknown>): Record<string, unknown> {
  const error = entry.error as Record<string, unknown> | undefined;
  return aiSdkErrorName(error) ? { ...entry, error: modelCallSummary(error!) } : entry;
}

/** What a log line may keep of a failed model call: nothing the model server wrote, nothing of the request. */
const MODEL_CALL_FIELDS = ['statusCode', 'url', 'isRetryable', 'reason', 'code'];
/**
 * Where an AI SDK error keeps the errors it wraps, each as telling as the error itself (a RetryError's
 * `lastError` is the model server's answer, in full). A RetryError's `errors` (every attempt) are left out:
 * the last one decided, and the serializer would list them twice (`errors`, `aggregateErrors`).
 */
const WRAPPED_ERRORS = ['lastError', 'cause'];
const MAX_WRAPPING = 5;

function modelCallSummary(error: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const summary: Record<string, unknown> = { name: aiSdkErrorName(error) ?? error.name };
  for (const field of MODEL_CALL_FIELDS) if (error[field] !== undefined) summary[field] = error[field];
  summary.message = error.statusCode === undefined ? 'The model call failed.' : `The model server answered ${String(error.statusCode)}.`;
  for (const key of WRAPPED_ERRORS) {
    const wrapped = error[key];
    if (wrapped && typeof wrapped === 'object' && depth < MAX_WRAPPING) summary[key] = modelCallSummary(wrapped as Record<string, unknown>, depth + 1);
  }
  return summary;
}

/**
 * Mastra's warning for a tool call whose arguments do not fit the tool's schema quotes the arguments after the
 * field errors; the model wrote them from the user's words ("a quiet place to grieve my mother"). The field
 * errors stay.
 */
function withoutToolArguments(entry: Record<string, unknown>): Record<string, unknown> {
  const { validationError } = entry;
  if (typeof validationError !== 'string') return entry;
  const argumentsAt = validationError.indexOf('\n\nProvided arguments:');
  return argumentsAt < 0 ? entry : { ...entry, validationError: validationError.slice(0, argumentsAt) };
}

function aiSdkErrorName(error: Record<string, unknown> | undefined): string | undefined {
  if (!error) return undefined;
  const name = typeof error.name === 'string' ? error.name : undefined;
  if (name && AI_SDK_ERROR_NAME.test(name)) return name;
  return typeof error.stack === 'string' ? AI_SDK_ERROR_NAME.exec(error.stack)?.[0] : undefined;
}
