import { z } from 'zod';

/**
 * SPEC's error model: every failure leaves the service as
 * `{ error, code, details }` (+ `stack` in development only), and this module
 * is the one place that decides which status and code a failure gets.
 */
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

/** SPEC's error body as a schema, for the OpenAPI document. */
export const errorBodySchema = z.object({
  error: z.string().describe('What went wrong'),
  code: z.enum(ERROR_CODES),
  details: z.record(z.string(), z.unknown()).describe('Additional context'),
  stack: z.string().optional().describe('Stack trace, in development only'),
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

export const MODEL_NOT_CONFIGURED = new ApiError(
  500,
  'MODEL_ERROR',
  'No language model is configured. Set OPENAI_API_KEY (OpenAI) or OPENAI_BASE_URL (any OpenAI-compatible server such as Ollama, LM Studio or vLLM), and MODEL, then restart the service.',
);

/** The first upstream HTTP failure in an error's cause chain (AI SDK `APICallError`, possibly inside a `RetryError`). */
function upstreamStatus(error: unknown, depth = 0): number | undefined {
  if (!error || typeof error !== 'object' || depth > 5) return undefined;
  const e = error as { statusCode?: unknown; lastError?: unknown; cause?: unknown };
  if (typeof e.statusCode === 'number') return e.statusCode;
  return upstreamStatus(e.lastError, depth + 1) ?? upstreamStatus(e.cause, depth + 1);
}

function errorNames(error: unknown, depth = 0): string[] {
  if (!error || typeof error !== 'object' || depth > 5) return [];
  const e = error as { name?: unknown; cause?: unknown; lastError?: unknown };
  const names = typeof e.name === 'string' ? [e.name] : [];
  return [...names, ...errorNames(e.lastError, depth + 1), ...errorNames(e.cause, depth + 1)];
}

/**
 * Classifies any failure of an agent run. Upstream messages are not passed on
 * (they can echo keys or request bodies); the upstream status is.
 */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const classified = classifyAgentFailure(error);
  return new ApiError(classified.status, classified.code, classified.message, classified.details, error);
}

function classifyAgentFailure(error: unknown): ApiError {
  const status = upstreamStatus(error);
  if (status === 429) {
    return new ApiError(429, 'RATE_LIMITED', 'The language model is rate limiting requests; try again shortly.', { upstreamStatus: status });
  }
  if (status !== undefined) {
    return new ApiError(500, 'MODEL_ERROR', `The language model request failed (upstream status ${status}).`, { upstreamStatus: status });
  }
  if (errorNames(error).includes('AI_APICallError')) {
    return new ApiError(500, 'MODEL_ERROR', 'The language model server could not be reached.');
  }
  return new ApiError(500, 'MODEL_ERROR', 'The agent failed to produce a response.');
}

export function errorBody(error: ApiError, options: { isDevelopment: boolean }): ErrorBody {
  const body: ErrorBody = { error: error.message, code: error.code, details: error.details };
  if (options.isDevelopment) body.stack = error.cause instanceof Error ? error.cause.stack : error.stack;
  return body;
}
