import { ReadableStream, type ReadableStreamDefaultController } from 'node:stream/web';
import { MastraError } from '@mastra/core/error';
import type { ChunkType } from '@mastra/core/stream';
import { SSEStreamingApi } from 'hono/streaming';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { streamEventSchema } from '../contract/stream-events.ts';
import { RunningTurns } from '../threads/running-turns.ts';
import { InProcessTurnLock } from '../threads/turn-lock.ts';
import { startTurn } from '../threads/turn.ts';
import { pipeSpecEvents } from './spec-stream.ts';

const RUN = 'run-1';
const TIMING = { keepAliveMs: 100, idleTimeoutMs: 700, writeTimeoutMs: 10_000 };
const KEEP_ALIVE = ': keep-alive';
/** How long a stopped run may take to store its partial reply (spec-stream.ts): the fake clock runs past it. */
const SETTLE_MS = 5_000;

beforeEach(() => {
  vi.useFakeTimers();
  vi.setSystemTime(0);
});
afterEach(() => vi.useRealTimers());

const chunk = (type: string, payload: Record<string, unknown> = {}) => ({ type, payload, runId: RUN, from: 'AGENT' }) as unknown as ChunkType;

/** A model run the test feeds chunk by chunk, piped to an SSE stream whose frames are recorded with the (fake) time they were written. */
async function pipeRun({ recordedError, writeTakesMs = 0 }: { recordedError?: unknown; writeTakesMs?: number } = {}) {
  let upstream!: ReadableStreamDefaultController<ChunkType>;
  let upstreamCancelled = false;
  const source = new ReadableStream<ChunkType>({
    start: (controller) => void (upstream = controller),
    cancel: () => void (upstreamCancelled = true),
  });
  const wire = new TransformStream<Uint8Array, Uint8Array>();
  const sse = new SSEStreamingApi(wire.writable, wire.readable);
  if (writeTakesMs > 0) {
    // A socket that takes its time to accept a write (a real one settles a write some time after it is made).
    const write = sse.write.bind(sse);
    sse.write = async (input) => {
      await new Promise((resolve) => setTimeout(resolve, writeTakesMs));
      return write(input);
    };
  }
  const frames: Array<{ at: number; text: string }> = [];
  const reading = (async () => {
    const reader = sse.responseReadable.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      buffer += read.value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        frames.push({ at: Date.now(), text: buffer.slice(0, end) });
        buffer = buffer.slice(end + 2);
      }
    }
  })();
  // A stateless turn with a generous budget: only the stream's own timing is under test.
  const turn = await startTurn(undefined, new AbortController().signal, { lock: new InProcessTurnLock({ maxQueued: 1 }), running: new RunningTurns(), timeoutMs: 3_600_000 });
  const piping = pipeSpecEvents({ fullStream: source, runId: RUN, error: recordedError }, { sse, drop: () => {} }, turn, TIMING).finally(() => {
    turn.end();
    return sse.close();
  });
  return {
    send: (...chunks: ChunkType[]) => chunks.forEach((c) => upstream.enqueue(c)),
    end: () => upstream.close(),
    frames,
    events: () => frames.filter((f) => f.text.startsWith('data: ')).map((f) => streamEventSchema.parse(JSON.parse(f.text.slice(6)))),
    abort: turn,
    upstreamCancelled: () => upstreamCancelled,
    /** The pipe's end: a stopped run is given its settling time on the fake clock (and its last writes theirs), so no test waits for real. */
    done: async () => {
      await vi.advanceTimersByTimeAsync(SETTLE_MS + 100);
      await Promise.all([piping, reading]);
    },
  };
}

it('keeps an idle stream open with comments, then ends it with one timeout error and stops the model', async () => {
  const run = await pipeRun();
  run.send(chunk('start'), chunk('step-start', { request: {} }), chunk('text-delta', { id: 't', text: 'Thinking' }));

  await vi.advanceTimersByTimeAsync(TIMING.idleTimeoutMs - 1);
  expect(run.events().map((e) => e.type)).toEqual(['start', 'step-start', 'text']);
  const afterText = run.frames.slice(3);
  expect(afterText.length).toBeGreaterThan(0);
  expect(afterText.every((f) => f.text === KEEP_ALIVE)).toBe(true);
  // Never longer than the keep-alive interval without a frame.
  const times = [0, ...run.frames.map((f) => f.at)];
  expect(Math.max(...times.slice(1).map((t, i) => t - times[i]!))).toBeLessThanOrEqual(TIMING.keepAliveMs);

  await vi.advanceTimersByTimeAsync(1);
  await run.done();
  expect(run.events().at(-1)).toEqual({
    type: 'error',
    error: { code: 'MODEL_ERROR', message: 'The model sent nothing for 700 ms; the run was stopped.' },
    runId: RUN,
  });
  expect(run.frames.at(-1)!.at).toBe(TIMING.idleTimeoutMs);
  expect(run.abort.signal.aborted).toBe(true);
  expect(run.upstreamCancelled()).toBe(true);
});

it('writes a comment every keep-alive interval when each write takes a moment to settle', async () => {
  const run = await pipeRun({ writeTakesMs: 3 });
  run.send(chunk('start'));
  await vi.advanceTimersByTimeAsync(TIMING.idleTimeoutMs - 1);
  const keepAlives = run.frames.filter((f) => f.text === KEEP_ALIVE).map((f) => f.at);
  // Each frame reaches the wire 3 ms after it is written: one every 100 ms from the first frame's 3 ms on.
  expect(keepAlives).toEqual([103, 203, 303, 403, 503, 603]);
  await vi.advanceTimersByTimeAsync(1);
  await run.done();
});

it('counts idleness from the last chunk, not from the start of the run', async () => {
  const run = await pipeRun();
  run.send(chunk('start'));
  await vi.advanceTimersByTimeAsync(600);
  run.send(chunk('text-delta', { id: 't', text: 'late' }));
  await vi.advanceTimersByTimeAsync(699);
  expect(run.events().map((e) => e.type)).toEqual(['start', 'text']);
  await vi.advanceTimersByTimeAsync(1);
  await run.done();
  expect(run.events().map((e) => e.type)).toEqual(['start', 'text', 'error']);
  expect(run.frames.at(-1)!.at).toBe(600 + TIMING.idleTimeoutMs);
});

it("does not count a tool's run as silence, and counts the model's silence from the tool's result", async () => {
  const run = await pipeRun();
  const call = { toolCallId: 'call-1', toolName: 'weatherTool', args: { location: 'Paris' } };
  run.send(chunk('start'), chunk('tool-call', call));
  await vi.advanceTimersByTimeAsync(3 * TIMING.idleTimeoutMs);
  run.send(chunk('tool-result', { ...call, result: { temperature: 20 } }));
  await vi.advanceTimersByTimeAsync(TIMING.idleTimeoutMs - 1);
  expect(run.events().map((e) => e.type)).toEqual(['start', 'tool-call', 'tool-result']);
  await vi.advanceTimersByTimeAsync(1);
  await run.done();
  expect(run.events().map((e) => e.type)).toEqual(['start', 'tool-call', 'tool-result', 'error']);
  expect(run.frames.at(-1)!.at).toBe(4 * TIMING.idleTimeoutMs);
});

it('sends no keep-alive while events keep coming, and ends cleanly with the run', async () => {
  const run = await pipeRun();
  run.send(chunk('start'), chunk('step-start', { request: {} }));
  for (const text of ['a', 'b', 'c']) {
    await vi.advanceTimersByTimeAsync(TIMING.keepAliveMs / 2);
    run.send(chunk('text-delta', { id: 't', text }));
  }
  run.send(chunk('step-finish', { stepResult: { reason: 'stop' } }), chunk('finish', { stepResult: { reason: 'stop' } }));
  run.end();
  await vi.advanceTimersByTimeAsync(1);
  await run.done();
  expect(run.frames.map((f) => f.text).filter((t) => t === KEEP_ALIVE)).toEqual([]);
  expect(run.events().map((e) => e.type)).toEqual(['start', 'step-start', 'text', 'text', 'text', 'step-finish', 'run-finish']);
  expect(run.abort.signal.aborted).toBe(false);
});

it('ends a run whose reply could not be stored with one error event, not run-finish', async () => {
  // Mastra records the store's failure on the run and still sends finish.
  const storeFailure = new MastraError({ id: 'STORE_SAVE_MESSAGES_FAILED', domain: 'STORAGE', category: 'THIRD_PARTY' });
  const run = await pipeRun({ recordedError: storeFailure });
  run.send(chunk('start'), chunk('step-start', { request: {} }), chunk('text-delta', { id: 't', text: 'Hi' }));
  run.send(chunk('step-finish', { stepResult: { reason: 'stop' } }), chunk('finish', { stepResult: { reason: 'stop' } }));
  run.end();
  await vi.advanceTimersByTimeAsync(1);
  await run.done();
  expect(run.events()).toEqual([
    { type: 'start', runId: RUN },
    { type: 'step-start', payload: { stepType: 'initial' }, runId: RUN },
    { type: 'text', text: 'Hi', runId: RUN },
    { type: 'step-finish', payload: { stepType: 'initial', finishReason: 'stop' }, runId: RUN },
    {
      type: 'error',
      error: { code: 'MEMORY_NOT_INITIALIZED', message: 'The conversation store failed during this turn, so the turn was not completed; try again.' },
      runId: RUN,
    },
  ]);
});

it('ends a cut-off run with one MODEL_ERROR event and aborts the model call', async () => {
  const run = await pipeRun();
  run.send(chunk('start'), chunk('text-delta', { id: 't', text: 'Hel' }), chunk('step-finish', { stepResult: { reason: 'unknown' } }));
  await vi.advanceTimersByTimeAsync(1);
  await run.done();
  expect(run.events().slice(-1)).toEqual([
    { type: 'error', error: { code: 'MODEL_ERROR', message: "The model's response ended before the reply was complete." }, runId: RUN },
  ]);
  expect(run.abort.signal.aborted).toBe(true);
});
