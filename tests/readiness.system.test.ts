import { expect, it } from 'vitest';
import { probeReadiness } from './fixtures/readiness-probe.ts';

// Without any key, speech-to-text is the local engine: /ready loads its library and runs ffmpeg (the rest of
// /ready, with speech going to a server, is readiness.test.ts).
it('GET /ready checks the local speech engine when no key is set: ready once its system packages are installed', async () => {
  const { status, body } = await probeReadiness({ DATABASE_URL: 'none' }, { speech: 'real' });
  expect(body.checks['stt-local']).toEqual({ ok: true });
  expect(status).toBe(503); // no model
});

it('GET /ready checks that the programs every upload is probed with run, for the OpenAI-compatible engine too', async () => {
  const { status, body } = await probeReadiness({ DATABASE_URL: 'none', OPENAI_API_KEY: 'k' }, { speech: 'real' });
  expect(body.checks['stt-openai']).toEqual({ ok: true });
  expect(status).toBe(200);
});
