/**
 * @module SPEC's error model: every failure leaves the service as
 * `{ error, code, details }` (+ `stack` in development only), and this module
 * is the one place that decides which status and code a failure gets, ours
 * and the framework's alike (`toApiError`).
 */
import { HTTPException } from 'hono/http-exception';
// Mastra's schema routes throw their own copy of Hono's HTTPException.
import { HTTPException as MastraHTTPException } from '@mastra/server/server-adapter';
import { APICallError, RetryError } from 'ai';
import { z } from 'zod';

export const ERROR_CODES = [
  'INVALID_REQUEST',
  'NOT_FOUND',
  'RATE_LIMITED',
  'MODEL_ERROR',
  'TOOL_EXECUTION_FAILED',
  'MEMORY_NOT_INITIALIZED',
  'AUDIO_PROCESSING_ERROR',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorBodySchema = z.object({
  error: z.string().describe('Message describing what went wrong'),
  code: z.enum(ERROR_CODES),
  details: z.record(z.string(), z.unknown()).describe('Additional context'),
  stack: z.string().optional().describe('Stack trace, present in development only'),
});

export type ErrorBody = z.infer<typeof errorBodySchema>;

export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(status: number, code: ErrorCode, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(message, { cause });
    this.status = status;
    this.code = code;
    this.details = details;
  }
}

export function invalidRequest(message: string, details: Record<string, unknown> = {}) {
  return new ApiError(400, 'INVALID_REQUEST', message, details);
}

/** A zod failure as a 400 whose message names every bad field. */
export function fromZodError(error: z.ZodError, subject = 'request body') {
  const issues = error.issues.map((issue) => ({
    path: issue.path.join('.') || '(root)',
    message: issue.code === 'unrecognized_keys' ? `unrecognized field(s): ${issue.keys.join(', ')}` : issue.message,
  }));
  const summary = issues.map((i) => (i.path === '(root)' ? i.message : `${i.path}: ${i.message}`)).join('; ');
  return invalidRequest(`Invalid ${subject}: ${summary}`, { issues });
}

export function bodyTooLarge(maxBytes: number) {
  return new ApiError(413, 'INVALID_REQUEST', `Request body exceeds ${maxBytes} bytes.`, { maxBytes });
}

export function threadNotFound(threadId: string) {
  return new ApiError(404, 'NOT_FOUND', `Thread ${threadId} was not found for this resource.`, { threadId });
}

/** Memory is off (no cause) or its store failed (the cause, kept for the log, never sent). */
export function memoryNotInitialized(cause?: unknown) {
  return new ApiError(
    500,
    'MEMORY_NOT_INITIALIZED',
    cause
      ? 'The conversation store is unreachable; this request needs memory (threadId/resourceId). Stateless requests still work.'
      : 'Conversation memory is switched off (DATABASE_URL is "none"); send the request without threadId/resourceId, or configure DATABASE_URL.',
    {},
    cause,
  );
}

export const MODEL_CUT_OFF = new ApiError(500, 'MODEL_ERROR', "The model's response stream ended before the reply was complete.");

export function modelTimedOut(idleMs: number) {
  return new ApiError(500, 'MODEL_ERROR', `The model sent nothing for ${idleMs} ms; the run was stopped.`, { idleMs });
}

export const MODEL_NOT_CONFIGURED = new ApiError(
  500,
  'MODEL_ERROR',
  'No language model is configured. Set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server such as Ollama, LM Studio or vLLM), and MODEL, then restart the service.',
);

/** The errors of a failure's cause chain, outermost first (a `RetryError` contributes its last attempt). */
export function causeChain(error: unknown, depth = 0): unknown[] {
  if (!error || typeof error !== 'object' || depth > 5) return [];
  const next = RetryError.isInstance(error) ? error.lastError : (error as { cause?: unknown }).cause;
  return [error, ...causeChain(next, depth + 1)];
}

/** The upstream model call that failed, if any (AI SDK `APICallError`, possibly inside a `RetryError`). */
function failedModelCall(error: unknown): APICallError | undefined {
  return causeChain(error).find((e): e is APICallError => APICallError.isInstance(e));
}

const CODE_FOR_FRAMEWORK_STATUS: Record<number, ErrorCode> = { 404: 'NOT_FOUND', 429: 'RATE_LIMITED' };

/**
 * Classifies any failure: ours pass through, the framework's client errors
 * (Hono `HTTPException`s) keep their status, everything else is a failure of
 * the agent run. Upstream messages are not passed on (they can echo keys or
 * request bodies); the upstream status is.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if ((error instanceof HTTPException || error instanceof MastraHTTPException) && error.status < 500) {
    return new ApiError(error.status, CODE_FOR_FRAMEWORK_STATUS[error.status] ?? 'INVALID_REQUEST', error.message, {}, error);
  }
  const classified = classifyAgentFailure(error);
  return new ApiError(classified.status, classified.code, classified.message, classified.details, error);
}

function classifyAgentFailure(error: unknown): ApiError {
  const call = failedModelCall(error);
  const status = call?.statusCode;
  if (status === 429) {
    return new ApiError(429, 'RATE_LIMITED', 'The language model is rate limiting requests; try again shortly.', { upstreamStatus: status });
  }
  if (status !== undefined) {
    return new ApiError(500, 'MODEL_ERROR', `The language model request failed (upstream status ${status}).`, { upstreamStatus: status });
  }
  if (call) return new ApiError(500, 'MODEL_ERROR', 'The language model server could not be reached.');
  return new ApiError(500, 'MODEL_ERROR', 'The agent failed to produce a response.');
}

export function errorBody(error: ApiError, options: { isDevelopment: boolean }): ErrorBody {
  const body: ErrorBody = { error: error.message, code: error.code, details: error.details };
  if (options.isDevelopment) body.stack = error.cause instanceof Error ? error.cause.stack : error.stack;
  return body;
}
