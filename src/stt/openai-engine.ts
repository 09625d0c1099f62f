/**
 * @module The `openai` speech-to-text engine: the AI SDK's `transcribe` with `@ai-sdk/openai`'s
 * transcription model, i.e. `POST {baseURL}/audio/transcriptions`. It works with OpenAI and with any
 * server that speaks that endpoint (faster-whisper-server, LocalAI, vLLM).
 */
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError, RetryError, transcribe } from 'ai';
import { readFile } from 'node:fs/promises';
import { causeChain, upstreamRetryAfterSeconds } from '../contract/errors.ts';
import { languageCodeOfName, providerFailure, toSttError, transcriptionFailed } from '../contract/stt.ts';
import type { SttEngine } from './engine.ts';
import { probeReadiness } from './probe.ts';
import { rethrowLongWait } from '../mastra/long-rate-limits.ts';

export interface OpenAIEngineOptions {
  apiKey: string;
  /** e.g. `http://localhost:8000/v1`; OpenAI's when undefined. */
  baseURL?: string;
  /** `STT_MODEL` (its default is in mastra.config.ts). */
  model: string;
  /** Retries of a failed call (429, 5xx, network), with the SDK's backoff. */
  maxRetries: number;
}

/**
 * The most of a speech server's answer read. An hour of audio (the upload limit) makes a transcript of tens of KB,
 * under a megabyte as verbose JSON with its segments; a server answering without end had the whole answer held in
 * memory (300 MB took the process to 1.8 GB).
 */
export const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

class AnswerTooLarge extends Error {
  override readonly name = 'AnswerTooLarge';
}

/**
 * `fetch`, whose answers end in an error past `maxBytes` (the rest is not read: the connection is cancelled). A 5xx
 * that large is retried as any 5xx is (MODEL_MAX_RETRIES), each attempt read to the bound at most.
 */
function boundedFetch(maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    let read = 0;
    const bounded = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > maxBytes) controller.error(new AnswerTooLarge(`the answer is over ${maxBytes} bytes`));
        else controller.enqueue(chunk);
      },
    });
    return new Response(response.body.pipeThrough(bounded), response);
  };
}

export function createOpenAIEngine({ apiKey, baseURL, model, maxRetries }: OpenAIEngineOptions): SttEngine {
  const provider = createOpenAI({ apiKey, baseURL, fetch: boundedFetch(MAX_ANSWER_BYTES) });
  const transcriptionModel = withEveryWhisperLanguage(provider.transcription(model));
  const formatOptions = languageReportingFormat(model);
  return {
    name: 'openai',
    async transcribe(audio, { language, signal }) {
      // The SDK sends bytes; the route has already bounded them to the upload limit.
      const data = await readFile(audio.path, { signal });
      try {
        const result = await transcribe({
          model: transcriptionModel,
          audio: data,
          providerOptions: { openai: { ...formatOptions, ...(language ? { language } : {}) } },
          maxRetries,
          abortSignal: signal,
        });
        // SPEC: English unless detected otherwise. A model that reports no language (gpt-4o-transcribe) is
        // answered with the one asked for, else English: the README says when that is not a detected one.
        return { transcript: result.text.trim(), language: result.language ?? language ?? 'en' };
      } catch (error) {
        throw classify(error);
      }
    },
    // The configuration guarantees a key or a base URL, and whether the server accepts them shows on the first
    // call; what can be known is whether uploads can be probed, which the route does before sending any.
    readiness: probeReadiness,
    close: async () => {},
  };
}

type TranscriptionModel = ReturnType<ReturnType<typeof createOpenAI>['transcription']>;

/**
 * whisper-1 names the language it heard in English ("punjabi"), and the AI SDK turns 57 of those names into codes,
 * dropping the others (Bengali, Punjabi, Telugu…): the answer would then have said `en`. The model's raw answer
 * still holds the name, which is read when the SDK found no code.
 */
function withEveryWhisperLanguage(model: TranscriptionModel): TranscriptionModel {
  const doGenerate: TranscriptionModel['doGenerate'] = async (options) => {
    // A long rate-limit wait is passed on, not waited out, as the language model's is (long-rate-limits.ts).
    const result = await Promise.resolve(model.doGenerate(options)).catch(rethrowLongWait);
    if (result.language) return result;
    const reported = (result.response.body as { language?: unknown } | undefined)?.language;
    return { ...result, language: typeof reported === 'string' ? languageCodeOfName(reported) : undefined };
  };
  // Over the model, not a copy of it: its provider and id are getters of its class.
  return Object.assign(Object.create(model) as TranscriptionModel, { doGenerate });
}

/**
 * The response format in which `model` names the language it heard. Whisper's `verbose_json` does; plain `json`
 * carries only the text. The SDK asks whisper-1 for `verbose_json` itself, but not a model it does not know: a
 * self-hosted Whisper (faster-whisper-server, vLLM, LocalAI) serving `Systran/faster-whisper-small`, say. OpenAI's
 * own `gpt-` models keep the SDK's choice: gpt-4o(-mini)-transcribe refuse `verbose_json`.
 */
function languageReportingFormat(model: string): { responseFormat?: 'verbose_json' } {
  return model.startsWith('gpt-') ? {} : { responseFormat: 'verbose_json' };
}

function classify(error: unknown) {
  if (causeChain(error).some((cause) => cause instanceof AnswerTooLarge)) {
    return transcriptionFailed(`The speech-to-text provider's answer was over ${MAX_ANSWER_BYTES / 1024 / 1024} MiB, far more than a transcript; it was not read.`, error);
  }
  // After the last retry the SDK wraps the provider's answer in a RetryError.
  const failure = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(failure)) return toSttError(error);
  return providerFailure({ status: failure.statusCode, retryAfterSeconds: upstreamRetryAfterSeconds(failure), cause: error });
}

