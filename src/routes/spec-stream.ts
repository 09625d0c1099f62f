import type { SSEStreamingApi } from 'hono/streaming';
import type { ReadableStream, ReadableStreamDefaultReader } from 'node:stream/web';
import type { ChunkType } from '@mastra/core/stream';
import { type ApiError, clientTooSlow, isClientsOwn, MODEL_CUT_OFF, modelTimedOut, toApiError } from '../contract/errors.ts';
import { createStreamEventMapper, errorEvent, type SpecEvent } from '../contract/stream-events.ts';
import { STOPPED_TURN_GRACE_MS, type Turn } from '../threads/turn.ts';

const IDLE = Symbol('idle');
const STOPPED = Symbol('stopped');
const TIMED_OUT = Symbol('timed out');

export interface StreamTiming {
  /** SSE comment interval on an idle stream. */
  keepAliveMs: number;
  /** How long a run may go without any chunk before it fails. */
  idleTimeoutMs: number;
  /** How long one write may wait for a client that stopped reading before the client is dropped. */
  writeTimeoutMs: number;
}

/**
 * A Mastra run as the pipe reads it: its chunks, its id, and the error it recorded. When storing
 * the reply fails (an output processor throws), Mastra records the error on the run and still
 * sends `finish`.
 */
export interface StreamedRun {
  readonly fullStream: ReadableStream<ChunkType>;
  readonly runId: string;
  readonly error?: unknown;
}

/** The client end of the stream: its SSE writer, and a way to close its connection outright. */
export interface StreamClient {
  sse: SSEStreamingApi;
  drop(): void;
}

/**
 * @module Writes a Mastra run to an SSE stream as SPEC events, live: each chunk is
 * mapped and flushed as it arrives. Every way the run can go wrong (an error
 * chunk, a reply that could not be stored, a stream cut off without a finish
 * reason, no chunk for too long, the turn's time running out) ends in exactly
 * one `error` event, and the model call is aborted. Writes respect
 * backpressure: a client that reads nothing for `writeTimeoutMs` is dropped and
 * its run aborted, so a stalled reader holds at most one event in this pipe (what
 * the model has already sent, Mastra holds for the reply it stores). Resolves once
 * the run has settled (a stopped run has stored its
 * partial reply): when the stream ends, the turn is stored.
 */
export async function pipeSpecEvents(run: StreamedRun, client: StreamClient, turn: Turn, timing: StreamTiming) {
  const { runId } = run;
  const map = createStreamEventMapper(runId);
  const reader = run.fullStream.getReader();
  const writer = createWriter(client, turn, timing);
  const keepAlive = startKeepAlive(writer, timing.keepAliveMs);
  const send = (event: SpecEvent) => writer.write(`data: ${JSON.stringify(event)}\n\n`, turn.signal);
  const tools = runningTools();

  try {
    for (;;) {
      // The model's silence is bounded, not a tool's: a tool has its own limit (TOOL_TIMEOUT_MS), the turn its own.
      const next = await readWithin(reader, tools.running() ? undefined : timing.idleTimeoutMs, turn.signal);
      if (next === STOPPED) break;
      if (next === IDLE) {
        turn.abort(modelTimedOut('idle', timing.idleTimeoutMs));
        break;
      }
      if (next.done) return;
      tools.track(next.value);
      // A run whose reply could not be stored has failed, whatever its finish says.
      if (next.value.type === 'finish' && run.error !== undefined) {
        turn.abort(toApiError(run.error));
        break;
      }
      const mapped = map(next.value);
      if (mapped.kind === 'event') await send(mapped.event);
      else if (mapped.kind === 'failure') turn.abort(toApiError(mapped.error));
      // The model's middleware fails a stream without a finish itself (model.ts): this is for a finish it lets through.
      else if (mapped.kind === 'cut-off') turn.abort(MODEL_CUT_OFF);
    }
  } catch (error) {
    turn.abort(toApiError(error));
  } finally {
    keepAlive.stop();
  }
  await tellClientWhy(turn.stopped(), runId, writer);
  await settle(reader);
}

/** The one `error` event of a stopped turn, unless the client is why it stopped. */
async function tellClientWhy(reason: ApiError | undefined, runId: string, writer: ReturnType<typeof createWriter>) {
  if (reason && !isClientsOwn(reason)) await writer.write(`data: ${JSON.stringify(errorEvent(runId, reason))}\n\n`);
}

/** SSE writes that give up on a client that stops reading: the turn stops and the connection is closed. */
function createWriter(client: StreamClient, turn: Turn, timing: StreamTiming) {
  let inFlight = 0;
  let lastWrite = Date.now();
  return {
    get idleFor() {
      return inFlight > 0 ? 0 : Date.now() - lastWrite;
    },
    async write(data: string, signal?: AbortSignal) {
      inFlight += 1;
      // The bytes leave now: a write that settles later (the socket's acceptance) must not push the next keep-alive back.
      lastWrite = Date.now();
      try {
        const outcome = await within(client.sse.write(data), timing.writeTimeoutMs, signal);
        if (outcome === TIMED_OUT) {
          turn.abort(clientTooSlow(timing.writeTimeoutMs));
          client.drop();
        }
      } finally {
        inFlight -= 1;
      }
    },
  };
}

/**
 * After the run stopped, reads on until Mastra has finished it (and stored what
 * it had), for a bounded time. Also ends a native stream whose client left (native-call.ts).
 */
export async function settle<T>(reader: Pick<ReadableStreamDefaultReader<T>, 'read' | 'cancel'>) {
  const deadline = AbortSignal.timeout(STOPPED_TURN_GRACE_MS);
  for (;;) {
    const read = reader.read().catch(() => ({ done: true as const, value: undefined }));
    const next = await within(read, STOPPED_TURN_GRACE_MS, deadline);
    if (next === TIMED_OUT || next === STOPPED || next.done) break;
  }
  reader.cancel().catch(() => {});
}

/** The run's tool calls that have no result yet: while one runs, the model is waiting, not silent. */
function runningTools() {
  const calls = new Set<string>();
  return {
    running: () => calls.size > 0,
    track(chunk: ChunkType) {
      if (chunk.type === 'tool-call') calls.add(chunk.payload.toolCallId);
      else if (chunk.type === 'tool-result' || chunk.type === 'tool-error') calls.delete(chunk.payload.toolCallId);
    },
  };
}

/** The next chunk, or `IDLE` after `idleMs` without one (never, without a limit). */
function readWithin<T>(reader: ReadableStreamDefaultReader<T>, idleMs: number | undefined, stop: AbortSignal) {
  return within(reader.read(), idleMs, stop).then((outcome) => (outcome === TIMED_OUT ? IDLE : outcome));
}

/** `work`'s result, or `TIMED_OUT` after `ms` (if given), or `STOPPED` once `stop` aborts, whichever comes first. */
async function within<T>(work: Promise<T>, ms: number | undefined, stop?: AbortSignal): Promise<T | typeof TIMED_OUT | typeof STOPPED> {
  if (stop?.aborted) return STOPPED;
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const timedOut = new Promise<typeof TIMED_OUT>((resolve) => {
    if (ms !== undefined) timer = setTimeout(resolve, ms, TIMED_OUT);
  });
  const stopped = new Promise<typeof STOPPED>((resolve) => {
    onStop = () => resolve(STOPPED);
    stop?.addEventListener('abort', onStop, { once: true });
  });
  try {
    return await Promise.race([work, timedOut, stopped]);
  } finally {
    clearTimeout(timer);
    stop?.removeEventListener('abort', onStop!);
  }
}

/**
 * An SSE comment (`: keep-alive`) once nothing was written for `interval`, so proxies keep the stream open: the timer
 * is set for the moment the stream would have been idle that long, never a tick later.
 */
function startKeepAlive(writer: ReturnType<typeof createWriter>, interval: number) {
  let timer: NodeJS.Timeout;
  const check = () => {
    const idleFor = writer.idleFor;
    if (idleFor < interval) {
      timer = setTimeout(check, interval - idleFor);
    } else {
      void writer.write(': keep-alive\n\n');
      timer = setTimeout(check, interval);
    }
  };
  timer = setTimeout(check, interval);
  return { stop: () => clearTimeout(timer) };
}
