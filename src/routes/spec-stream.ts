import type { SSEStreamingApi } from 'hono/streaming';
import { type ApiError, MODEL_CUT_OFF, modelTimedOut, toApiError } from '../contract/errors.ts';
import type { ReadableStream, ReadableStreamDefaultReader } from 'node:stream/web';
import type { ChunkType } from '@mastra/core/stream';
import { createStreamEventMapper, errorEvent, type SpecEvent } from '../contract/stream-events.ts';

const IDLE = Symbol('idle');

export interface StreamTiming {
  /** SSE comment interval on an idle stream. */
  keepAliveMs: number;
  /** How long a run may go without any chunk before it fails. */
  idleTimeoutMs: number;
}

/**
 * @module Writes a Mastra run to an SSE stream as SPEC events, live: each chunk is
 * mapped and flushed as it arrives. Every way the run can go wrong (an error
 * chunk, a stream cut off without a finish reason, no chunk for too long)
 * ends in exactly one `error` event, and the upstream call is aborted.
 */
export async function pipeSpecEvents(
  fullStream: ReadableStream<ChunkType>,
  runId: string,
  sse: SSEStreamingApi,
  abort: AbortController,
  timing: StreamTiming,
) {
  const map = createStreamEventMapper(runId);
  const reader = fullStream.getReader();
  const keepAlive = startKeepAlive(sse, timing.keepAliveMs);
  const send = async (event: SpecEvent) => {
    await sse.writeSSE({ data: JSON.stringify(event) });
    keepAlive.wrote();
  };
  const fail = async (error: ApiError) => {
    abort.abort(error);
    await send(errorEvent(runId, error));
  };

  try {
    for (;;) {
      const next = await readWithin(reader, timing.idleTimeoutMs);
      if (next === IDLE) return await fail(modelTimedOut(timing.idleTimeoutMs));
      if (next.done || sse.aborted) return;
      const mapped = map(next.value);
      if (mapped.kind === 'event') await send(mapped.event);
      else if (mapped.kind === 'failure') return await fail(toApiError(mapped.error));
      else if (mapped.kind === 'cut-off') return await fail(MODEL_CUT_OFF);
    }
  } catch (error) {
    if (!sse.aborted) await fail(toApiError(error));
  } finally {
    keepAlive.stop();
    reader.cancel().catch(() => {});
  }
}

async function readWithin<T>(reader: ReadableStreamDefaultReader<T>, ms: number) {
  let timer: NodeJS.Timeout | undefined;
  const idle = new Promise<typeof IDLE>((resolve) => (timer = setTimeout(resolve, ms, IDLE)));
  try {
    return await Promise.race([reader.read(), idle]);
  } finally {
    clearTimeout(timer);
  }
}

/** An SSE comment (`: keep-alive`) whenever nothing was written for a while, so proxies keep the stream open. */
function startKeepAlive(sse: SSEStreamingApi, interval: number) {
  let lastWrite = Date.now();
  const timer = setInterval(() => {
    if (Date.now() - lastWrite < interval) return;
    lastWrite = Date.now();
    sse.write(': keep-alive\n\n').catch(() => {});
  }, interval / 2);
  return {
    wrote: () => (lastWrite = Date.now()),
    stop: () => clearInterval(timer),
  };
}
