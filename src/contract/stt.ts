/**
 * @module SPEC's speech-to-text operation (`POST /stt`): the multipart fields it takes, the JSON it answers,
 * and the status and code of each way it can fail.
 */
import { z } from 'zod';
import type { DescribeRouteOptions } from '@mastra/core/server';
import { ApiError, errorBodySchema, invalidRequest, retryAfterHeader, type ErrorCode } from './errors.ts';

/** SPEC's formats, decided from the file's content, never its name or content type. */
export const AUDIO_FORMATS = ['mp3', 'wav', 'm4a', 'flac', 'ogg', 'webm'] as const;

export type AudioFormat = (typeof AUDIO_FORMATS)[number];

/** SPEC's "Maximum audio file size": 25 MB, counted as OpenAI counts it: 25 MiB. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;
export const MAX_AUDIO_SIZE_TEXT = sizeText(MAX_AUDIO_BYTES);

export const ACCEPTED_FORMATS_TEXT = AUDIO_FORMATS.map((format) => format.toUpperCase()).join(', ');

const languageNames = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/**
 * A BCP 47 tag (`en-US`, `pt_BR`, `zh-Hant-TW`) or an ISO 639-1 code (`en`), reduced to the ISO 639-1
 * code engines take. Tags whose language has no two-letter code (`fil`, `yue`) are refused, not guessed.
 * Empty is unset: what a form sends for its "detect" choice.
 */
const languageTag = z
  .string()
  .trim()
  .transform((tag, context) => {
    if (tag === '') return undefined;
    const language = iso6391Of(tag);
    if (language === undefined) {
      context.addIssue({ code: 'custom', message: `"${tag}" is not a BCP 47 language tag or ISO 639-1 code with a two-letter language (e.g. en, en-US, fr)` });
      return z.NEVER;
    }
    return language;
  })
  .describe('Language spoken in the audio: BCP 47 (`en-US`) or ISO 639-1 (`en`). Omitted or empty: detected by the engine.');

function iso6391Of(tag: string): string | undefined {
  let canonical: string;
  try {
    // POSIX-style `en_US` is common in clients; BCP 47 spells it `en-US`.
    [canonical = ''] = Intl.getCanonicalLocales(tag.replaceAll('_', '-'));
  } catch {
    return undefined;
  }
  const primary = canonical.split('-')[0]!;
  return primary.length === 2 && languageNames.of(primary) !== undefined ? primary : undefined;
}

/**
 * Whisper's names for languages whose English name in Intl (CLDR) differs, or that have no two-letter code of their
 * own (Cantonese is a language of ISO 639-1's `zh`).
 */
const WHISPER_LANGUAGE_NAMES: Record<string, string> = { bengali: 'bn', cantonese: 'zh', maori: 'mi', myanmar: 'my', nynorsk: 'nn', tagalog: 'tl' };

let codesByLanguageName: ReadonlyMap<string, string> | undefined;

/**
 * The ISO 639-1 code of a language a transcription reports by its English name, as whisper-1's `verbose_json` does
 * ("punjabi"); `undefined` for a language without one (Hawaiian).
 */
export function languageCodeOfName(name: string): string | undefined {
  codesByLanguageName ??= everyLanguageName();
  return codesByLanguageName.get(name.trim().toLowerCase());
}

/** Every two-letter code Intl names, by its English name in lower case, and Whisper's own names. */
function everyLanguageName(): Map<string, string> {
  const letters = [...'abcdefghijklmnopqrstuvwxyz'];
  const byName = new Map<string, string>();
  for (const code of letters.flatMap((first) => letters.map((second) => first + second))) {
    const name = languageNames.of(code);
    if (name) byName.set(name.toLowerCase(), code);
  }
  for (const [name, code] of Object.entries(WHISPER_LANGUAGE_NAMES)) byName.set(name, code);
  return byName;
}

/** The text fields of the multipart body; anything else is refused so a typo does not pass unnoticed. */
export const sttFields = z.strictObject({ language: languageTag.optional() });

export type SttFields = z.infer<typeof sttFields>;

/** The whole multipart body, for the OpenAPI document (the file part is checked while it streams in). */
export const sttRequestBody = sttFields.extend({
  audio: z.file().describe(`The audio file, at most ${MAX_AUDIO_SIZE_TEXT}: ${ACCEPTED_FORMATS_TEXT}, recognised by content (not by name).`),
});

export const sttResponse = z.object({
  transcript: z.string().describe('Transcribed text'),
  success: z.literal(true).describe('Always true for a successful transcription'),
  timestamp: z.iso.datetime().describe('ISO 8601 time when the transcription completed'),
  processingTime: z.number().int().nonnegative().describe('Milliseconds from the complete upload to the transcript'),
  language: z
    .string()
    .regex(/^[a-z]{2}$/)
    .describe('ISO 639-1 code of the language transcribed: the one the engine detected if it reports it, else the one requested, else `en`'),
  durationSeconds: z.number().nonnegative().describe('Length of the audio in seconds'),
  engine: z.enum(['openai', 'local']).describe('The engine that transcribed it'),
});

// ---------------------------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------------------------

export function audioTooLarge(maxBytes: number) {
  return new ApiError(413, 'INVALID_REQUEST', `The audio file is larger than the ${sizeText(maxBytes)} limit.`, { maxBytes });
}

/** In MiB, as the limit is counted, and exactly: `25 MiB (26,214,400 bytes)`. */
function sizeText(bytes: number) {
  return `${Number((bytes / 1024 / 1024).toFixed(2))} MiB (${bytes.toLocaleString('en-US')} bytes)`;
}

/**
 * The transcription outgrew `STT_TIMEOUT_MS` and was stopped. 504, as the agent routes answer their timeouts: the
 * work behind the service did not finish in time, which a client may retry (with shorter audio), unlike a failure.
 */
export function transcriptionTimedOut(timeoutMs: number) {
  return new ApiError(504, 'AUDIO_PROCESSING_ERROR', `The transcription took longer than ${timeoutMs} ms; it was stopped.`, {
    timeout: 'transcription',
    timeoutMs,
  });
}

/** The audio lasts longer than `STT_MAX_AUDIO_SECONDS`: the client's to shorten, as a file over the size limit is. */
export function audioTooLong(maxSeconds: number) {
  return invalidRequest(`The audio is longer than the ${maxSeconds} s limit; send a shorter recording, or split it.`, { maxSeconds });
}

/** Not audio the service takes: the reason, and what it does take. */
export function unsupportedAudio(reason: string) {
  return invalidRequest(`The file is not audio in an accepted format (${ACCEPTED_FORMATS_TEXT}): ${reason}.`, {
    acceptedFormats: [...AUDIO_FORMATS],
    reason,
  });
}

/** A system package the service needs is missing: the message says what it provides; the details name it and its install command. */
export function missingPackage(name: string, message: string, install: string) {
  return new ApiError(500, 'AUDIO_PROCESSING_ERROR', message, { missingPackage: name, install });
}

/** The model folder the configuration names holds no model: a setting to fix, not a package to install. */
export function configuredModelMissing() {
  return new ApiError(
    500,
    'AUDIO_PROCESSING_ERROR',
    'Speech-to-text (local engine): the folder STT_LOCAL_MODEL_DIR names holds no PocketSphinx model (an acoustic model, a language model and a dictionary); point it at one, or leave it unset for Debian\'s pocketsphinx-en-us.',
    { setting: 'STT_LOCAL_MODEL_DIR' },
  );
}

/** A program the service needs is missing: which one, and the command that installs it. */
export function missingProgram(program: string, aptPackage: string) {
  const install = `apt-get install -y ${aptPackage}`;
  return missingPackage(aptPackage, `Speech-to-text needs \`${program}\`, which is not installed: run \`${install}\`.`, install);
}

/** The transcription itself failed (the audio, the recogniser): the message says what, in words a client can act on. */
export function transcriptionFailed(message: string, cause?: unknown) {
  return new ApiError(500, 'AUDIO_PROCESSING_ERROR', message, {}, cause);
}

export interface ProviderFailure {
  /** Undefined when the provider could not be reached at all. */
  status?: number;
  retryAfterSeconds?: number;
  cause?: unknown;
}

/**
 * A transcription provider's HTTP failure. The provider's own message is not passed on: it can echo keys,
 * URLs or request details. Its status is.
 */
export function providerFailure({ status, retryAfterSeconds, cause }: ProviderFailure): ApiError {
  const fail = (httpStatus: number, code: ErrorCode, message: string, details: Record<string, unknown> = {}, headers = {}) =>
    new ApiError(httpStatus, code, message, status === undefined ? details : { upstreamStatus: status, ...details }, cause, headers);
  if (status === undefined) return fail(500, 'AUDIO_PROCESSING_ERROR', 'The speech-to-text provider could not be reached.');
  if (status === 401 || status === 403) {
    return fail(500, 'AUDIO_PROCESSING_ERROR', 'The speech-to-text provider refused the API key: check STT_API_KEY (or OPENAI_API_KEY).');
  }
  if (status === 429) {
    const retry = retryAfterSeconds === undefined ? {} : { retryAfterSeconds };
    return fail(429, 'RATE_LIMITED', 'The speech-to-text provider is rate limiting requests; try again shortly.', retry, retryAfterHeader(retryAfterSeconds));
  }
  if (status === 400 || status === 415 || status === 422) return fail(400, 'INVALID_REQUEST', 'The speech-to-text provider could not use this audio file.');
  if (status === 413) return fail(413, 'INVALID_REQUEST', 'The audio file is larger than the speech-to-text provider accepts.');
  // A success status on a failed call: the answer came, but was no transcription (cut off, not JSON, no text).
  if (status < 300) return fail(500, 'AUDIO_PROCESSING_ERROR', "The speech-to-text provider's answer could not be read as a transcription.");
  return fail(500, 'AUDIO_PROCESSING_ERROR', `The speech-to-text provider failed (upstream status ${status}).`);
}

/** Any failure of a transcription, as SPEC's error. */
export function toSttError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return transcriptionFailed('Speech-to-text failed.', error);
}

const json = (schema: z.ZodType) => ({ 'application/json': { schema } });

// Mastra turns the zod schemas into JSON Schema when it builds /api/openapi.json (documented in
// docs-server-custom-api-routes.md); hono-openapi's type for the option only knows JSON Schema objects.
export const STT_OPENAPI = {
  summary: 'Transcribe an audio file',
  description:
    `Upload one audio file as multipart/form-data in field \`audio\` (at most ${MAX_AUDIO_SIZE_TEXT}; ${ACCEPTED_FORMATS_TEXT}, ` +
    'recognised by content). Optional field `language` (BCP 47 or ISO 639-1); without it the engine detects the language (the local engine: English only).',
  tags: ['Speech-to-text'],
  requestBody: { required: true, content: { 'multipart/form-data': { schema: sttRequestBody } } },
  responses: {
    200: { description: 'The transcript', content: json(sttResponse) },
    400: { description: 'No audio file, a bad form field or a query parameter, not audio in an accepted format, or audio longer than the limit', content: json(errorBodySchema) },
    413: { description: `The audio file is larger than ${MAX_AUDIO_SIZE_TEXT}`, content: json(errorBodySchema) },
    415: { description: 'The body is compressed (Content-Encoding): send it as it is', content: json(errorBodySchema) },
    429: {
      description: "This client's RATE_LIMIT_PER_MINUTE, or the speech-to-text provider's own limit; `Retry-After` says when to try again (the provider's, when it gave one)",
      headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer' } } },
      content: json(errorBodySchema),
    },
    500: { description: 'Transcription failed, or the provider refused the API key', content: json(errorBodySchema) },
    504: { description: 'The transcription took longer than `STT_TIMEOUT_MS` and was stopped', content: json(errorBodySchema) },
  },
} as unknown as DescribeRouteOptions;
