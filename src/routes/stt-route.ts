/**
 * @module SPEC's `POST /stt`: receives one audio file (streamed to disk under the size limit), decides its
 * format by content, has the configured engine transcribe it, and answers SPEC's speech-to-text response.
 * A rejected upload never reaches the engine; the temporary file is deleted whatever happens.
 */
import { registerApiRoute, type ApiRoute } from '@mastra/core/server';
import type { Context, MiddlewareHandler } from 'hono';
import { dirname, join } from 'node:path';
import { errorBody, type ApiError } from '../contract/errors.ts';
import { SPEC_PATHS } from '../contract/paths.ts';
import { STT_OPENAPI, sttResponse, toSttError, transcriptionTimedOut } from '../contract/stt.ts';
import type { SttEngine } from '../stt/engine.ts';
import { probeAudio } from '../stt/probe.ts';
import { withAudioUpload, type ReceivedAudio } from '../stt/upload.ts';
import { refuseContentEncoding, refuseQueryParameters } from './agent-call.ts';
import { streamCustomRouteBody } from './custom-route-body.ts';
import { logFailure } from './error-handler.ts';
import './context.ts';

export interface SttRouteDeps {
  engine: SttEngine;
  /** The largest audio file accepted, in bytes (SPEC's 25 MB, counted as 25 MiB: `MAX_AUDIO_BYTES`). */
  maxBytes: number;
  /** The longest audio accepted, in seconds (`STT_MAX_AUDIO_SECONDS`). */
  maxSeconds: number;
  /** The most one transcription may take, upload included (`STT_TIMEOUT_MS`): then it is stopped, and answered 504. */
  timeoutMs: number;
  /** Where uploads are kept while they are transcribed (the service's scratch folder). */
  tempDir: string;
  isDevelopment: boolean;
}

/**
 * The route, and the server middleware it needs on its path so the upload streams instead of being
 * buffered (see custom-route-body.ts). Register both: `apiRoutes: [route]`, `middleware: [middleware]`.
 */
export function createSttRoute(deps: SttRouteDeps): { route: ApiRoute; middleware: { path: string; handler: MiddlewareHandler } } {
  const route = registerApiRoute(SPEC_PATHS.stt, {
    method: 'POST',
    openapi: STT_OPENAPI,
    handler: (c) => transcribeUpload(c, deps),
  });
  return { route, middleware: { path: SPEC_PATHS.stt, handler: streamCustomRouteBody } };
}

async function transcribeUpload(c: Context, deps: SttRouteDeps): Promise<Response> {
  // Whichever comes first, the client hanging up or the deadline, stops the upload, the probe and the engine.
  // The deadline's clock stops with the request: left running, it kept each request's signals for STT_TIMEOUT_MS.
  const deadline = new AbortController();
  const clock = setTimeout(() => deadline.abort(), deps.timeoutMs);
  const signal = AbortSignal.any([c.req.raw.signal, deadline.signal]);
  try {
    refuseRequestShape(c);
    const body = await withAudioUpload(c.req.raw, { maxBytes: deps.maxBytes, tempDir: deps.tempDir, signal }, (upload) =>
      transcribe(upload, deps, signal),
    );
    return c.json(body);
  } catch (error) {
    return errorResponse(c, deadline.signal.aborted ? transcriptionTimedOut(deps.timeoutMs) : toSttError(error), deps.isDevelopment);
  } finally {
    clearTimeout(clock);
  }
}

/** The upload is the whole request: a compressed body would not parse, and a query parameter (`?language=`) would be ignored. */
function refuseRequestShape(c: Context) {
  refuseContentEncoding(c);
  refuseQueryParameters(c, '/stt takes no query parameters; send language as a form field');
}

async function transcribe(upload: ReceivedAudio, { engine, maxSeconds }: SttRouteDeps, signal: AbortSignal) {
  const started = performance.now();
  // Beside the upload, in its folder, which is deleted with it.
  const pcmPath = engine.usesPcm ? join(dirname(upload.path), 'audio.pcm') : undefined;
  const { format, durationSeconds } = await probeAudio(upload.path, { maxSeconds, signal, pcmPath });
  const result = await engine.transcribe(
    { path: upload.path, format, durationSeconds, fileName: upload.fileName, pcmPath },
    { language: upload.fields.language, signal },
  );
  return sttResponse.parse({
    transcript: result.transcript,
    success: true,
    timestamp: new Date().toISOString(),
    processingTime: Math.round(performance.now() - started),
    language: result.language,
    durationSeconds,
    engine: engine.name,
  });
}

function errorResponse(c: Context, error: ApiError, isDevelopment: boolean): Response {
  // A client that hung up caused its own failure and reads no answer: nothing to log.
  if (!c.req.raw.signal.aborted) logFailure(c, error);
  return c.json(errorBody(error, { isDevelopment }), error.status as 400, error.headers);
}
