import { describe, expect, it } from 'vitest';
import { parseConfig } from '../mastra.config.ts';
import { createCompanion } from '../src/app.ts';

describe('speech-to-text configuration', () => {
  it('is the local engine when no key and no speech server is configured, even with a chat server', () => {
    expect(parseConfig({}).stt).toMatchObject({ provider: 'local' });
    expect(parseConfig({ OPENAI_BASE_URL: 'http://localhost:11434/v1' }).stt).toMatchObject({ provider: 'local' });
  });

  it('is OpenAI with the chat key and whisper-1 as soon as OPENAI_API_KEY is set', () => {
    expect(parseConfig({ OPENAI_API_KEY: 'sk-chat', MODEL_MAX_RETRIES: '1' }).stt).toEqual({
      provider: 'openai',
      apiKey: 'sk-chat',
      baseURL: undefined,
      model: 'whisper-1',
      maxRetries: 1,
      local: { modelDir: undefined, workers: undefined },
      maxAudioSeconds: 3600,
      timeoutMs: 1_800_000,
    });
  });

  it("bounds a transcription by STT_TIMEOUT_MS, and Mastra's handler timeout for every route never cuts it first", async () => {
    const config = parseConfig({ DATABASE_URL: 'none', STT_TIMEOUT_MS: '2400000' });
    const companion = await createCompanion(config);
    try {
      expect(config.stt.timeoutMs).toBe(2_400_000);
      expect(companion.mastra.getServer()!.timeout).toBeGreaterThan(2_400_000);
    } finally {
      await companion.close();
    }
    expect(() => parseConfig({ STT_TIMEOUT_MS: '10' })).toThrowError(/STT_TIMEOUT_MS/);
  });

  it('sends speech to its own server with its own key, never the chat key', () => {
    const env = { OPENAI_API_KEY: 'sk-chat', STT_BASE_URL: 'http://whisper.lan:8000/v1', STT_MODEL: 'Systran/faster-whisper-small' };
    expect(parseConfig(env).stt).toMatchObject({ provider: 'openai', apiKey: 'not-needed', baseURL: 'http://whisper.lan:8000/v1', model: 'Systran/faster-whisper-small' });
    expect(parseConfig({ ...env, STT_API_KEY: 'whisper-key' }).stt).toMatchObject({ apiKey: 'whisper-key' });
  });

  it('passes the local engine its model folder (a relative one from the project root) and worker count', () => {
    expect(parseConfig({ STT_LOCAL_MODEL_DIR: '/models/en-us', STT_LOCAL_WORKERS: '3' }).stt.local).toEqual({ modelDir: '/models/en-us', workers: 3 });
    expect(parseConfig({ STT_LOCAL_MODEL_DIR: 'models/en-us' }, '/srv/companion').stt.local.modelDir).toBe('/srv/companion/models/en-us');
    expect(() => parseConfig({ STT_LOCAL_WORKERS: '0' })).toThrowError(/STT_LOCAL_WORKERS/);
  });

  it('takes STT_PROVIDER over the default, and refuses openai with nothing to reach it by', () => {
    expect(parseConfig({ OPENAI_API_KEY: 'sk-chat', STT_PROVIDER: 'local' }).stt).toMatchObject({ provider: 'local' });
    expect(parseConfig({ STT_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://localai:8080/v1' }).stt).toMatchObject({ apiKey: 'not-needed', baseURL: 'http://localai:8080/v1' });
    expect(() => parseConfig({ STT_PROVIDER: 'openai' })).toThrowError(/^Invalid configuration:\n {2}STT_PROVIDER: openai needs STT_API_KEY or OPENAI_API_KEY/);
    expect(() => parseConfig({ STT_PROVIDER: 'whisper', STT_BASE_URL: 'not a url' })).toThrowError(/STT_PROVIDER: .*\n {2}STT_BASE_URL: /);
  });
});
