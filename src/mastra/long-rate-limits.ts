/**
 * @module An upstream's 429 that asks for a long wait. The AI SDK (and Mastra) retry a 429 after the `Retry-After`
 * the upstream names (up to 30 s per attempt), holding the request, its thread and its client meanwhile: a turn, or
 * a transcription, then answered only after two such waits. When the upstream asks for more than a few seconds, the
 * call is marked not retryable instead, and the client gets the 429 at once, with the wait as its own `Retry-After`.
 */
import { APICallError } from 'ai';
import { upstreamRetryAfterMs } from '../contract/errors.ts';

/** The longest wait an upstream 429 may ask for and still be retried rather than passed on. */
const MAX_RETRY_WAIT_MS = 3_000;

/** `error` again, as not retryable when it is a 429 asking for more than MAX_RETRY_WAIT_MS. */
export function rethrowLongWait(error: unknown): never {
  if (!APICallError.isInstance(error) || error.statusCode !== 429) throw error;
  const waitMs = upstreamRetryAfterMs(error);
  if (waitMs === undefined || waitMs <= MAX_RETRY_WAIT_MS) throw error;
  throw new APICallError({
    message: error.message,
    url: error.url,
    requestBodyValues: error.requestBodyValues,
    statusCode: error.statusCode,
    responseHeaders: error.responseHeaders,
    responseBody: error.responseBody,
    cause: error.cause,
    data: error.data,
    isRetryable: false,
  });
}
