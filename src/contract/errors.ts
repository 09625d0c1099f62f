/**
 * @module SPEC's error model: every failure leaves the service as
 * `{ error, code, details }` (+ `stack` in development only). src/contract/ is
 * the one place that decides which status and code a failure gets: this module
 * for ours and the framework's alike (`toApiError`), stt.ts for speech-to-text's.
 */
import { HTTPException } from 'hono/http-exception';
// Mastra's schema routes throw their own copy of Hono's HTTPException.
import { HTTPException as MastraHTTPException } from '@mastra/server/server-adapter';
import { ErrorDomain } from '@mastra/core/error';
import { isMastraTimeoutError } from '@mastra/core/loop';
import { APICallError, RetryError } from 'ai';
import { z } from 'zod';
import { SPEC_PATHS } from './paths.ts';

export const ERROR_CODES = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'RATE_LIMITED',
  'MODEL_ERROR',
  'TOOL_EXECUTION_FAILED',
  'MEMORY_NOT_INITIALIZED',
  'AUDIO_PROCESSING_ERROR',
  'AUTH_UNAVAILABLE',
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
  /** Response headers the answer must carry, e.g. `Allow` on a 405. */
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    cause?: unknown,
    headers: Record<string, string> = {},
  ) {
    super(message, { cause });
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
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

export function unauthorized(message: string) {
  return new ApiError(401, 'UNAUTHORIZED', message, {}, undefined, { 'www-authenticate': 'Bearer' });
}

/** The identity provider's keys could not be fetched: no token can be checked, and none is at fault. */
export function authUnavailable(cause: unknown) {
  return new ApiError(503, 'AUTH_UNAVAILABLE', "The identity provider's signing keys could not be fetched to check the token; try again shortly.", {}, cause);
}

export function forbiddenResource() {
  return new ApiError(403, 'FORBIDDEN', 'resourceId must be the authenticated user (the token\'s subject); leave it out to use it.', {
    field: 'resourceId',
  });
}

export function rateLimited(retryAfterSeconds: number) {
  const message = `Too many requests; try again in ${retryAfterSeconds} s.`;
  return new ApiError(429, 'RATE_LIMITED', message, { retryAfterSeconds }, undefined, retryAfterHeader(retryAfterSeconds));
}

/**
 * What Node's HTTP parser refuses before any handler runs (it answers on the socket): headers over its limit (431),
 * a request that did not arrive within the read timeouts (408), anything else it cannot read as HTTP (400).
 */
export function unreadableRequest(parserCode: string | undefined): ApiError {
  if (parserCode === 'HPE_HEADER_OVERFLOW') return new ApiError(431, 'INVALID_REQUEST', 'The request headers are too large.');
  if (parserCode === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return new ApiError(408, 'INVALID_REQUEST', 'The request did not arrive in time (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS); the connection is closed.');
  }
  return new ApiError(400, 'INVALID_REQUEST', 'The request is not valid HTTP/1.1.');
}

export function bodyTooLarge(maxBytes: number) {
  return new ApiError(413, 'INVALID_REQUEST', `Request body exceeds ${maxBytes} bytes.`, { maxBytes });
}

export function unsupportedMediaType(contentType: string | undefined) {
  return new ApiError(415, 'INVALID_REQUEST', 'Content-Type must be application/json.', { contentType: contentType ?? null });
}

/** JSON on the wire is UTF-8 (RFC 8259): a body declared in a multi-byte encoding would be read wrongly, not as sent. */
export function unsupportedCharset(charset: string) {
  return new ApiError(415, 'INVALID_REQUEST', `A JSON body must be UTF-8, not ${charset}.`, { charset });
}

/** A compressed body is refused, not read as if it were plain. */
export function unsupportedContentEncoding(contentEncoding: string) {
  return new ApiError(415, 'INVALID_REQUEST', `Content-Encoding ${contentEncoding} is not accepted: send the body uncompressed.`, { contentEncoding });
}

/** A query parameter name that would reach `Object.prototype` in a naive parser. */
export function unsafeQueryKey(key: string) {
  return invalidRequest(`Query parameter "${key}" is not allowed.`, { parameter: key });
}

/** A development server's request named by a site's name: a page of that site reached it (DNS rebinding). */
export function hostNotAllowed(hostname: string) {
  return new ApiError(403, 'FORBIDDEN', `The development server answers only localhost and IP addresses, not ${hostname}.`, { host: hostname });
}

export function routeNotFound(method: string, path: string) {
  return new ApiError(404, 'NOT_FOUND', `No route ${method} ${path}.`, { method, path });
}

export function methodNotAllowed(method: string, path: string, allowed: string[]) {
  return new ApiError(
    405,
    'INVALID_REQUEST',
    `${method} is not allowed on ${path}; use ${allowed.join(', ')}.`,
    { method, path, allowed },
    undefined,
    { allow: allowed.join(', ') },
  );
}

export function threadNotFound(threadId: string) {
  return new ApiError(404, 'NOT_FOUND', `Thread ${threadId} was not found for this resource.`, { threadId });
}

export function messageNotFound(messageId: string) {
  return new ApiError(404, 'NOT_FOUND', `Message ${messageId} was not found for this resource.`, { messageId });
}

/** Memory is off (no cause) or its store failed (the cause, kept for the log, never sent). */
export function memoryNotInitialized(cause?: unknown) {
  return new ApiError(
    500,
    'MEMORY_NOT_INITIALIZED',
    cause
      ? 'The conversation store failed or could not be reached; try again later. A turn without threadId and resourceId does not need it.'
      : 'Conversation memory is switched off (DATABASE_URL is empty or "none"): no thread is stored. A turn without threadId and resourceId does not need it.',
    {},
    cause,
  );
}

/** The store failed during a turn (the cause, kept for the log, never sent): the turn's reply, if any, was not stored. */
export function storeFailedDuringTurn(cause: unknown) {
  return new ApiError(500, 'MEMORY_NOT_INITIALIZED', 'The conversation store failed during this turn, so the turn was not completed; try again.', {}, cause);
}

/** The model answered, then its answer broke off: a stream cut or ended without a finish reason, or a body cut short. */
export const MODEL_CUT_OFF = new ApiError(500, 'MODEL_ERROR', "The model's response ended before the reply was complete.");

/**
 * A turn stopped by one of its time limits: the model went silent for
 * `MODEL_IDLE_TIMEOUT_MS` (`idle`), or the whole turn outgrew `MODEL_TIMEOUT_MS`
 * (`turn`). 504: the model behind this gateway did not answer in time, which a
 * client may retry, unlike the 500 of a model that failed.
 */
export function modelTimedOut(timeout: 'idle' | 'turn', timeoutMs: number) {
  const message =
    timeout === 'idle'
      ? `The model sent nothing for ${timeoutMs} ms; the run was stopped.`
      : `The turn took longer than ${timeoutMs} ms; the run was stopped.`;
  return new ApiError(504, 'MODEL_ERROR', message, { timeout, timeoutMs });
}

/**
 * The service is stopping (SIGTERM) and the turn outlived the drain: stopped, its reply stored as far as it got.
 * 503, as a server that cannot serve the request now: the client may send it again, to the restarted service.
 */
export const SERVICE_STOPPING = new ApiError(503, 'MODEL_ERROR', 'The service is restarting; the reply was stopped. Send the message again.', {
  reason: 'shutting-down',
});

/** Whether a failure is a thread's full queue (`threadBusy`). */
export function isThreadBusy(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'RATE_LIMITED' && error.details.maxQueuedTurns !== undefined;
}

/** The thread already has `maxQueued` turns waiting behind the running one (0: no turn waits). */
export function threadBusy(threadId: string, maxQueued: number) {
  const busy = maxQueued === 0 ? 'is answering another turn' : `already has ${maxQueued} turn(s) waiting`;
  return new ApiError(429, 'RATE_LIMITED', `Thread ${threadId} ${busy}; send the next message after a reply.`, {
    threadId,
    maxQueuedTurns: maxQueued,
  });
}

/**
 * Why a turn stopped that no client hears about: its client hung up, or stopped
 * reading for `STREAM_WRITE_TIMEOUT_MS`. 499 (client closed request) keeps it out
 * of the error log; the status is never sent, since nobody is listening.
 */
export const CLIENT_GONE = new ApiError(499, 'INVALID_REQUEST', 'The client closed the connection before the reply was complete.');

export function clientTooSlow(writeTimeoutMs: number) {
  return new ApiError(499, 'INVALID_REQUEST', `The client read nothing for ${writeTimeoutMs} ms; the stream was dropped.`, { writeTimeoutMs });
}

/** Whether the client is why a turn stopped (`CLIENT_GONE`, `clientTooSlow`): nobody is left to tell. */
export function isClientsOwn(reason: ApiError): boolean {
  return reason.status === 499;
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
function failedModelCall(error: unknown, chain = causeChain(error)): APICallError | undefined {
  return chain.find((e): e is APICallError => APICallError.isInstance(e));
}

/**
 * Mastra's stores report their failures (a full disk, a lost database connection) as storage-domain
 * errors. A workflow step that failed passes its error on serialized, so the domain is what is checked.
 */
function isStoreFailure(error: unknown): boolean {
  return (error as { domain?: unknown }).domain === ErrorDomain.STORAGE;
}

const CODE_FOR_FRAMEWORK_STATUS: Record<number, ErrorCode> = { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 429: 'RATE_LIMITED' };

/**
 * Classifies any failure: ours pass through, the framework's client errors
 * (Hono `HTTPException`s) keep their status, its own server errors too, with
 * the code of the operation at `path` they stopped, and everything else is a
 * failure of the agent run. Upstream messages are not passed on (they can echo
 * keys or request bodies); the upstream status is.
 */
export function toApiError(error: unknown, path?: string): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof HTTPException || error instanceof MastraHTTPException) {
    if (error.status < 500) return new ApiError(error.status, CODE_FOR_FRAMEWORK_STATUS[error.status] ?? 'INVALID_REQUEST', error.message, {}, error);
    // Without a cause it is the framework's own failure; with one (a route handler's, handed on), the cause decides.
    if (path !== undefined && error.cause === undefined) return frameworkServerError(error.status, path, error);
  }
  return withCause(classifyAgentFailure(error), error);
}

/** A classified failure with what it was classified from as its cause (the failure line names the cause's class). */
function withCause(classified: ApiError, cause: unknown): ApiError {
  return new ApiError(classified.status, classified.code, classified.message, classified.details, cause, classified.headers);
}

/** What a failed model call's answer says of itself, whether the call is at hand or was serialized. */
type UpstreamAnswer = Pick<APICallError, 'responseHeaders'>;

/**
 * The wait an upstream asked for on a failed call, in milliseconds: `retry-after-ms`,
 * else `retry-after` as seconds or as an HTTP date.
 */
export function upstreamRetryAfterMs(call: UpstreamAnswer): number | undefined {
  const headers = call.responseHeaders ?? {};
  const milliseconds = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const retryAfter = headers['retry-after'];
  if (!retryAfter) return undefined;
  const seconds = Number(retryAfter);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(retryAfter);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * The longest wait a 429 passes on. An upstream's header is not ours to vouch for: past a day a
 * client is better told to come back tomorrow than, say, "in 1e+23 s" (not an integer at all).
 */
const MAX_PASSED_ON_RETRY_AFTER_SECONDS = 86_400;

/** The upstream's wait in whole seconds, as a 429 passes it on: at most a day. */
export function upstreamRetryAfterSeconds(call: UpstreamAnswer | undefined): number | undefined {
  const waitMs = call && upstreamRetryAfterMs(call);
  return waitMs === undefined ? undefined : Math.min(Math.ceil(waitMs / 1000), MAX_PASSED_ON_RETRY_AFTER_SECONDS);
}

/** The `Retry-After` header of a known wait: the same number as `details.retryAfterSeconds`. */
export function retryAfterHeader(seconds: number | undefined): Record<string, string> {
  return seconds === undefined ? {} : { 'retry-after': String(seconds) };
}

/** A 429 passes the upstream's wait on, whole seconds, as `details.retryAfterSeconds` and the `Retry-After` header. */
function upstreamRateLimited(call: UpstreamAnswer | undefined) {
  const retryAfterSeconds = upstreamRetryAfterSeconds(call);
  const message =
    retryAfterSeconds === undefined
      ? 'The language model is rate limiting requests; try again shortly.'
      : `The language model is rate limiting requests; try again in ${retryAfterSeconds} s.`;
  if (retryAfterSeconds === undefined) return new ApiError(429, 'RATE_LIMITED', message, { upstreamStatus: 429 });
  return new ApiError(429, 'RATE_LIMITED', message, { upstreamStatus: 429, retryAfterSeconds }, undefined, retryAfterHeader(retryAfterSeconds));
}

function classifyAgentFailure(error: unknown): ApiError {
  // Mastra's per-call timeout (`modelSettings.timeout.stepMs`) is how /generate bounds model silence.
  const chain = causeChain(error);
  const timeout = chain.find(isMastraTimeoutError);
  if (timeout) return modelTimedOut('idle', timeout.timeoutMs);
  if (chain.some(isStoreFailure)) return storeFailedDuringTurn(error);
  const call = failedModelCall(error, chain);
  return classifyUpstream(call !== undefined, call?.statusCode, call);
}

function classifyUpstream(calledModel: boolean, status: number | undefined, call?: UpstreamAnswer): ApiError {
  if (status === 429) return upstreamRateLimited(call);
  // A success status on a failed call: the answer began, then could not be read to its end.
  if (status !== undefined && status < 300) return MODEL_CUT_OFF;
  if (status !== undefined) {
    return new ApiError(500, 'MODEL_ERROR', `The language model request failed (upstream status ${status}).`, { upstreamStatus: status });
  }
  if (calledModel) return new ApiError(500, 'MODEL_ERROR', 'The language model server could not be reached.');
  return new ApiError(500, 'MODEL_ERROR', 'The agent failed to produce a response.');
}

/**
 * What a log line may say about a failure: its code, the class of what went
 * wrong and the upstream status — never the error object itself, whose
 * properties can hold the model request (system prompt, the user's words).
 */
export function describeFailure(error: ApiError) {
  const chain = causeChain(error);
  const root = chain.at(-1);
  return {
    code: error.code,
    status: error.status,
    // A workflow step hands its failure on serialized (a plain object), which keeps its name.
    errorClass: root instanceof Error ? root.name : (nameOf(root) ?? typeof root),
    // The driver's or the system's code (SQLITE_FULL, ECONNREFUSED) under the answer's own: what failed, without its message.
    errorCode: chain.slice(1).map(errorCodeOf).findLast(Boolean),
    // A serialized failed call is no APICallError any more: its status is the one the answer names.
    upstreamStatus: failedModelCall(error.cause)?.statusCode ?? upstreamStatusIn(error.details),
  };
}

function upstreamStatusIn(details: Record<string, unknown>): number | undefined {
  return typeof details.upstreamStatus === 'number' ? details.upstreamStatus : undefined;
}

function nameOf(error: unknown): string | undefined {
  const name = (error as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' ? name : undefined;
}

function errorCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]{2,40}$/.test(code) ? code : undefined;
}

/** A tool's failure as the model was told it: its own message, nothing else of the error. */
export function toolFailed(message: string): ApiError {
  return new ApiError(500, 'TOOL_EXECUTION_FAILED', message);
}

/**
 * A failure that reached us serialized, as in Mastra's native stream error
 * chunk (message, stack, URL and the model request, prompt included): only
 * the upstream status it names is kept.
 */
export function fromSerializedFailure(error: unknown): ApiError {
  const { name, statusCode, responseHeaders } = (error ?? {}) as { name?: unknown; statusCode?: unknown; responseHeaders?: unknown };
  const answer = responseHeaders && typeof responseHeaders === 'object' ? { responseHeaders: responseHeaders as Record<string, string> } : undefined;
  // No answer shows more of a cause than its class.
  return withCause(classifyUpstream(name === 'AI_APICallError', typeof statusCode === 'number' ? statusCode : undefined, answer), error);
}

/**
 * The framework's own server error (in practice the 504 of Mastra's `server.timeout`, Hono's timeout middleware,
 * which runs on every route, or a 5xx a Mastra route answers itself): the code is that of the operation it stopped.
 * The agent routes and /stt answer their own timeouts before it; every other route of the service reads or writes the
 * store.
 */
function frameworkServerError(status: number, path: string, cause?: unknown): ApiError {
  const code: ErrorCode = path === SPEC_PATHS.stt ? 'AUDIO_PROCESSING_ERROR' : path.startsWith('/api/agents/') ? 'MODEL_ERROR' : 'MEMORY_NOT_INITIALIZED';
  const message = status === 504 ? 'The request took longer than the server allows; it was stopped.' : `The request failed on the server (status ${status}).`;
  return new ApiError(status, code, message, {}, cause);
}

/**
 * A framework route's own error answer at `path`, reduced to its status: Mastra's
 * messages can echo request bodies, prompts or upstream URLs, so none of it is
 * passed on.
 */
export function frameworkError(status: number, path: string): ApiError {
  if (status >= 500) return frameworkServerError(status, path);
  const code = CODE_FOR_FRAMEWORK_STATUS[status] ?? 'INVALID_REQUEST';
  return new ApiError(status, code, `The request was refused (status ${status}).`);
}

export function isErrorBody(body: unknown): body is ErrorBody {
  if (!body || typeof body !== 'object') return false;
  const { error, code, details } = body as Partial<ErrorBody>;
  return typeof error === 'string' && ERROR_CODES.includes(code as ErrorCode) && typeof details === 'object' && details !== null;
}

export function errorBody(error: ApiError, options: { isDevelopment: boolean }): ErrorBody {
  const body: ErrorBody = { error: error.message, code: error.code, details: error.details };
  if (options.isDevelopment) body.stack = developmentStack(error);
  return body;
}

/**
 * The name every AI SDK error has (`AI_APICallError`, `AI_RetryError`…): its message, also its stack's first line,
 * can be the model server's own words (a 401's quotes part of the key), withheld everywhere (the logger too).
 */
export const AI_SDK_ERROR_NAME = /^AI_\w+/;

/**
 * The failure's own stack, where it happened; an AI SDK error's heading (its message, of as many lines as the
 * model server wrote) says what the body's `error` says.
 */
function developmentStack(error: ApiError): string | undefined {
  const cause = error.cause instanceof Error ? error.cause : error;
  if (!cause.stack || !AI_SDK_ERROR_NAME.test(cause.name)) return cause.stack;
  // V8 writes the heading as name, colon, message; a message may itself hold lines that look like frames.
  const heading = `${cause.name}: ${cause.message}`;
  const framesAt = cause.stack.startsWith(heading) ? heading.length : cause.stack.search(/\n\s+at /);
  return `${cause.name}: ${error.message}${framesAt < 0 ? '' : cause.stack.slice(framesAt)}`;
}
