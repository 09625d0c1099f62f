import { APICallError, RetryError } from 'ai';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loggableEntry } from './logger.ts';

const PROVIDER_WORDS = 'Incorrect API key provided: sk-proj-LEAKED****WXYZ';

function failedCall() {
  return new APICallError({
    message: PROVIDER_WORDS,
    url: 'http://speech.internal:8000/v1/audio/transcriptions',
    requestBodyValues: { model: 'whisper-1', prompt: 'the user words' },
    statusCode: 500,
    responseHeaders: { 'set-cookie': 'session=secret' },
    responseBody: JSON.stringify({ error: { message: PROVIDER_WORDS } }),
    data: { error: { message: PROVIDER_WORDS } },
    cause: new TypeError('socket hang up'),
  });
}

/** The line's `error` as pino writes it: loggableEntry is its log formatter, the error serializer comes after. */
function writtenError(error: Error) {
  return JSON.stringify(pino.stdSerializers.err(loggableEntry({ error }).error as Error));
}

describe('a failed model call in the log', () => {
  it("keeps an AI SDK retry's name, reason and each wrapped error's status, never the provider's words, the request or a stack", () => {
    const attempts = [failedCall(), failedCall(), failedCall()];
    const retry = new RetryError({ message: `Failed after 3 attempts. Last error: ${PROVIDER_WORDS}`, reason: 'maxRetriesExceeded', errors: attempts });

    expect(loggableEntry({ error: retry }).error).toEqual({
      name: 'AI_RetryError',
      reason: 'maxRetriesExceeded',
      message: 'The model call failed.',
      lastError: {
        name: 'AI_APICallError',
        statusCode: 500,
        url: 'http://speech.internal:8000/v1/audio/transcriptions',
        isRetryable: true,
        message: 'The model server answered 500.',
        cause: { name: 'TypeError', message: 'The model call failed.' },
      },
    });
    const written = writtenError(retry);
    for (const leak of ['LEAKED', 'the user words', 'session=secret', 'responseBody', 'node_modules', ' at ']) expect(written).not.toContain(leak);
  });
});
