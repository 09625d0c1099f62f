import { MastraError } from '@mastra/core/error';
import { HTTPException } from 'hono/http-exception';
import { HTTPException as MastraHTTPException } from '@mastra/server/server-adapter';
import { APICallError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, causeChain, describeFailure, errorBody, errorBodySchema, frameworkError, fromSerializedFailure, fromZodError, toApiError } from './errors.ts';
import { SPEC_PATHS } from './paths.ts';

function modelCallFailed(statusCode?: number) {
  return new APICallError({
    message: 'upstream said sk-live-123 at https://models.internal/v1',
    url: 'https://models.internal/v1/chat/completions',
    requestBodyValues: { messages: [{ role: 'system', content: 'You are the Friend' }] },
    statusCode,
  });
}

const retried = (error: unknown) => new RetryError({ message: 'Failed after 3 attempts', reason: 'maxRetriesExceeded', errors: [new Error('first'), error] });

/** What a client receives for a failure, checked against the contract's error body schema. */
function bodyOf(error: unknown, isDevelopment = false) {
  const apiError = toApiError(error);
  const body = errorBody(apiError, { isDevelopment });
  expect(errorBodySchema.parse(body)).toEqual(body);
  return { status: apiError.status, body };
}

describe('toApiError', () => {
  it('passes our own errors through unchanged', () => {
    const ours = new ApiError(404, 'NOT_FOUND', 'Thread t was not found for this resource.', { threadId: 't' });
    expect(toApiError(ours)).toBe(ours);
  });

  it('answers an upstream status with MODEL_ERROR and the status, never the upstream text', () => {
    expect(bodyOf(modelCallFailed(500))).toEqual({
      status: 500,
      body: { error: 'The language model request failed (upstream status 500).', code: 'MODEL_ERROR', details: { upstreamStatus: 500 } },
    });
  });

  it('answers an upstream 429 with 429 RATE_LIMITED', () => {
    expect(bodyOf(modelCallFailed(429))).toMatchObject({ status: 429, body: { code: 'RATE_LIMITED', details: { upstreamStatus: 429 } } });
  });

  it("passes the upstream's Retry-After on in whole seconds, at most a day", () => {
    const limited = (headers: Record<string, string>) => {
      const { body } = bodyOf(new APICallError({ message: 'slow down', url: 'https://models.internal/v1', requestBodyValues: {}, statusCode: 429, responseHeaders: headers }));
      return body.details?.retryAfterSeconds;
    };
    expect(limited({ 'retry-after': '30' })).toBe(30);
    expect(limited({ 'retry-after-ms': '1500' })).toBe(2);
    expect(limited({ 'retry-after': '99999999999999999999' })).toBe(86_400);
    expect(limited({ 'retry-after': new Date(Date.now() + 7 * 86_400_000).toUTCString() })).toBe(86_400);
    expect(limited({ 'retry-after': 'soon' })).toBeUndefined();
  });

  it('finds the failed model call inside a RetryError (its last attempt) and inside a cause chain', () => {
    expect(bodyOf(retried(modelCallFailed(429))).status).toBe(429);
    expect(bodyOf(new Error('agent failed', { cause: retried(modelCallFailed(503)) })).body.details).toEqual({ upstreamStatus: 503 });
  });

  it('calls a failed call with a success status a cut-off answer, not a failed request', () => {
    expect(bodyOf(modelCallFailed(200))).toEqual({
      status: 500,
      body: { error: "The model's response ended before the reply was complete.", code: 'MODEL_ERROR', details: {} },
    });
  });

  it('says the model server could not be reached when the call got no status', () => {
    expect(bodyOf(modelCallFailed(undefined)).body).toEqual({ error: 'The language model server could not be reached.', code: 'MODEL_ERROR', details: {} });
  });

  it('keeps the status of the framework client errors, Hono and Mastra alike', () => {
    expect(bodyOf(new HTTPException(404, { message: 'Not Found' }))).toEqual({ status: 404, body: { error: 'Not Found', code: 'NOT_FOUND', details: {} } });
    expect(bodyOf(new MastraHTTPException(429, { message: 'slow down' })).body.code).toBe('RATE_LIMITED');
    expect(bodyOf(new MastraHTTPException(400, { message: 'bad' })).body.code).toBe('INVALID_REQUEST');
  });

  it("answers the store's failure during a turn, however Mastra wrapped it, with 500 MEMORY_NOT_INITIALIZED that leaks nothing", () => {
    const storeFailed = new MastraError(
      { id: 'LIBSQL_STORE_SAVE_MESSAGES_FAILED', domain: 'STORAGE', category: 'THIRD_PARTY' },
      new Error('SQLITE_FULL: database or disk is full at /var/lib/companion/companion.db'),
    );
    const expected = {
      status: 500,
      body: { error: 'The conversation store failed during this turn, so the turn was not completed; try again.', code: 'MEMORY_NOT_INITIALIZED', details: {} },
    };
    expect(bodyOf(storeFailed)).toEqual(expected);
    expect(bodyOf(new Error('Agent stream failed', { cause: storeFailed }))).toEqual(expected);
    // A failed workflow step passes its error on as a plain object.
    expect(bodyOf(new Error('Input processor error', { cause: { message: 'SQLITE_IOERR', domain: 'STORAGE' } }))).toEqual(expected);
    // Mastra's errors of other domains are not the store's.
    expect(bodyOf(new MastraError({ id: 'AGENT_STREAM_FAILED', domain: 'AGENT', category: 'USER' })).body.code).toBe('MODEL_ERROR');
  });

  it('answers any other failure with a generic 500 MODEL_ERROR that leaks nothing', () => {
    const { status, body } = bodyOf(new TypeError("Cannot read properties of undefined (reading 'secret')"));
    expect(status).toBe(500);
    expect(body).toEqual({ error: 'The agent failed to produce a response.', code: 'MODEL_ERROR', details: {} });
    expect(bodyOf(new HTTPException(503, { message: 'internal detail' })).body.error).not.toContain('internal detail');
  });
});

describe('frameworkError', () => {
  it("gives a framework route's own 5xx answer the code of the operation at its path, and a 4xx that of its status", () => {
    expect(frameworkError(500, SPEC_PATHS.generate)).toMatchObject({ status: 500, code: 'MODEL_ERROR' });
    expect(frameworkError(500, SPEC_PATHS.stt)).toMatchObject({ status: 500, code: 'AUDIO_PROCESSING_ERROR' });
    expect(frameworkError(500, '/api/memory/threads')).toMatchObject({ status: 500, code: 'MEMORY_NOT_INITIALIZED', message: 'The request failed on the server (status 500).' });
    expect(frameworkError(404, '/api/memory/threads')).toMatchObject({ status: 404, code: 'NOT_FOUND', message: 'The request was refused (status 404).' });
  });
});

describe('describeFailure', () => {
  // A full disk during a turn logged errorClass "object" and nothing that said what failed.
  it("names a serialized failure's class and the driver's code (SQLITE_FULL), not its message", () => {
    const serialized = { name: 'SqliteError', code: 'SQLITE_FULL', message: 'database or disk is full at /var/lib/companion/companion.db', domain: 'STORAGE' };
    const failure = describeFailure(toApiError(new Error('Input processor error', { cause: serialized })));
    expect(failure).toEqual({ code: 'MEMORY_NOT_INITIALIZED', status: 500, errorClass: 'SqliteError', errorCode: 'SQLITE_FULL', upstreamStatus: undefined });
    expect(JSON.stringify(failure)).not.toContain('companion.db');
  });

  it("names a failed model call Mastra's native stream serialized (its class, the upstream status), as a live one", () => {
    const serialized = (statusCode: number) => ({ name: 'AI_APICallError', message: 'boom sk-live-123', statusCode, url: 'https://models.internal/v1', requestBodyValues: { messages: [] } });
    expect(describeFailure(fromSerializedFailure(serialized(500)))).toEqual({ code: 'MODEL_ERROR', status: 500, errorClass: 'AI_APICallError', errorCode: undefined, upstreamStatus: 500 });
    expect(describeFailure(fromSerializedFailure(serialized(429)))).toMatchObject({ code: 'RATE_LIMITED', status: 429, errorClass: 'AI_APICallError', upstreamStatus: 429 });
    expect(errorBody(fromSerializedFailure(serialized(500)), { isDevelopment: true }).stack).not.toContain('sk-live-123');
  });

  it('gives no code where none is a code, and the type of a root that has no name', () => {
    expect(describeFailure(toApiError(new Error('x', { cause: { code: 'not a code: /etc/passwd' } })))).toMatchObject({ errorClass: 'object', errorCode: undefined });
    expect(describeFailure(toApiError(modelCallFailed(500)))).toMatchObject({ errorClass: 'AI_APICallError', errorCode: undefined, upstreamStatus: 500 });
  });
});

describe('errorBody', () => {
  it('adds the stack of the original failure in development only', () => {
    const failure = new TypeError('Cannot read properties of undefined');
    expect(bodyOf(failure).body).not.toHaveProperty('stack');
    expect(bodyOf(failure, true).body.stack).toBe(failure.stack);
  });

  it("gives a failed model call's stack without the model server's message, its first line", () => {
    const failure = modelCallFailed(500);
    const { body } = bodyOf(failure, true);
    expect(body.stack).not.toContain('sk-live-123');
    expect(body.stack!.split('\n')[0]).toBe(`AI_APICallError: ${body.error}`);
    expect(body.stack!.split('\n').slice(1)).toEqual(failure.stack!.split('\n').slice(1));
  });

  it("gives none of a model server's message of several lines, even lines that look like frames", () => {
    const message = 'Unauthorized\n    at Proxy.handle (server.js:1:1)\nline3 sk-live-456';
    const failure = new APICallError({ message, url: 'https://models.internal/v1', requestBodyValues: {}, statusCode: 401 });
    const { body } = bodyOf(failure, true);
    expect(body.stack).not.toContain('sk-live-456');
    expect(body.stack).not.toContain('Proxy.handle');
    expect(body.stack!.split('\n')[0]).toBe(`AI_APICallError: ${body.error}`);
    expect(body.stack!.split('\n').slice(1)).toEqual(failure.stack!.split('\n').slice(3));
    expect(body.stack!.split('\n')[1]).toMatch(/^\s+at /);
  });
});

describe('fromZodError', () => {
  it('names every bad field, and unrecognised keys by name', () => {
    const schema = z.object({ messages: z.array(z.string()), threadId: z.string() }).strict();
    const result = schema.safeParse({ messages: 'hi', threadId: 7, model: 'gpt-5' });
    const error = fromZodError(result.error!);
    expect(error.status).toBe(400);
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(/^Invalid request body: messages: .*; threadId: .*; unrecognized field\(s\): model$/);
    expect(error.details.issues).toEqual([
      { path: 'messages', message: expect.any(String) },
      { path: 'threadId', message: expect.any(String) },
      { path: '(root)', message: 'unrecognized field(s): model' },
    ]);
  });
});

describe('causeChain', () => {
  it('walks causes outermost first, through a RetryError to its last attempt, and stops on a cycle', () => {
    const inner = new Error('inner');
    const retry = retried(inner);
    const outer = new Error('outer', { cause: retry });
    expect(causeChain(outer)).toEqual([outer, retry, inner]);
    const loop: { cause?: unknown } = {};
    loop.cause = loop;
    expect(causeChain(loop).length).toBeLessThanOrEqual(6);
  });
});
