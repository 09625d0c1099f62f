import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { STREAM, startApp, userSays, type AppHarness } from './fixtures/app-harness.ts';
import { PARIS_WEATHER } from './fixtures/open-meteo-stand-in.ts';
import { eventsOf, readFrames } from './fixtures/sse.ts';

// The configured keep-alive and idle timeout reach the stream, and a tool's run is not the model's silence.
// Exact timing is covered with fake timers in src/routes/spec-stream.test.ts; here only order counts.
let h: AppHarness;
beforeAll(async () => {
  h = await startApp({ STREAM_KEEPALIVE_MS: '10', MODEL_IDLE_TIMEOUT_MS: '300' });
});
afterAll(() => h.close());
beforeEach(() => h.reset());

it('keeps an idle stream open with comments, then ends it with a timeout error and aborts the model', async () => {
  h.model.script({ text: ['Thinking'], hang: true });

  const frames = await readFrames(await h.post(STREAM, userSays('Hi')));

  const textAt = frames.findIndex((f) => f.includes('"type":"text"'));
  const betweenTextAndEnd = frames.slice(textAt + 1, -1);
  expect(betweenTextAndEnd.length).toBeGreaterThan(0);
  expect(betweenTextAndEnd.every((f) => f === ': keep-alive\n\n')).toBe(true);
  const events = eventsOf(frames);
  expect(events.at(-1)).toEqual({
    type: 'error',
    error: { code: 'MODEL_ERROR', message: 'The model sent nothing for 300 ms; the run was stopped.' },
    runId: events[0].runId,
  });
  await h.model.requests[0].aborted;
  expect(h.model.requests[0].wasAborted).toBe(true);
});

it("does not count a tool's run as the model's silence: a slow tool's turn finishes, as on /generate", async () => {
  h.weather.delayMs = 600;
  h.model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] }, { text: 'Mild.' });

  const events = eventsOf(await readFrames(await h.post(STREAM, userSays('Weather in Paris?'))));

  expect(events.find((e) => e.type === 'tool-result').payload.result).toEqual(PARIS_WEATHER);
  expect(events.at(-1)).toMatchObject({ type: 'run-finish', payload: { finishReason: 'stop' } });
});
