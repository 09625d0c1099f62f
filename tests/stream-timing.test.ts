import { afterAll, beforeAll, expect, it } from 'vitest';
import { STREAM, startCompanion, userSays, type CompanionHarness } from './fixtures/companion-harness.ts';
import { eventsOf, readFrames } from './fixtures/sse.ts';

// Short timers so an idle stream shows its keep-alives and its idle timeout quickly.
let h: CompanionHarness;
beforeAll(async () => {
  h = await startCompanion({ STREAM_KEEPALIVE_MS: '100', MODEL_IDLE_TIMEOUT_MS: '700' });
});
afterAll(() => h.close());

it('keeps an idle stream open with comments, then ends it with a timeout error and aborts the model', async () => {
  h.model.script({ text: ['Thinking'], hang: true });

  const frames = await readFrames(await h.post(STREAM, userSays('Hi')));

  const textAt = frames.findIndex((f) => f.includes('"type":"text"'));
  const keepAlives = frames.filter((f) => f === ': keep-alive\n\n');
  expect(keepAlives.length).toBeGreaterThanOrEqual(2);
  expect(frames.slice(textAt + 1, -1).every((f) => f === ': keep-alive\n\n')).toBe(true);
  const events = eventsOf(frames);
  expect(events.at(-1)).toEqual({
    type: 'error',
    error: { code: 'MODEL_ERROR', message: 'The model sent nothing for 700 ms; the run was stopped.' },
    runId: events[0].runId,
  });
  await h.model.requests[0].aborted;
  expect(h.model.requests[0].wasAborted).toBe(true);
});
