import { describe, expect, it } from 'vitest';
import { parseConfig } from '../mastra.config.ts';
import { GENERATE, startApp, userSays } from './fixtures/app-harness.ts';
import { runServiceToExit } from './fixtures/service.ts';

describe('configuration', () => {
  it('has working defaults', () => {
    const config = parseConfig({});
    expect(config).toMatchObject({
      server: { port: 4111, host: 'localhost' },
      model: undefined,
      databaseUrl: 'file:./data/companion.db',
      memory: { lastMessages: 20 },
      openMeteo: { geocodingUrl: 'https://geocoding-api.open-meteo.com', forecastUrl: 'https://api.open-meteo.com' },
      logLevel: 'info',
      isDevelopment: false,
    });
  });

  it('bounds every turn and every connection by default', () => {
    const config = parseConfig({});
    expect(config.turns).toEqual({ timeoutMs: 180_000, idleTimeoutMs: 60_000, maxQueued: 10 });
    expect(config.stream).toEqual({ keepAliveMs: 15_000, writeTimeoutMs: 30_000 });
    expect(config.modelMaxOutputTokens).toBe(4096);
    expect(config.server).toMatchObject({ headersTimeoutMs: 10_000, requestTimeoutMs: 60_000 });
  });

  it('refuses a headers timeout longer than the request timeout that contains it', () => {
    expect(() => parseConfig({ HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toThrowError(
      'Invalid configuration:\n  HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS',
    );
  });

  it('configures any OpenAI-compatible server, with or without a key', () => {
    expect(parseConfig({ OPENAI_BASE_URL: 'http://localhost:11434/v1', MODEL: 'llama3.2' }).model).toEqual({
      apiKey: 'not-needed',
      baseURL: 'http://localhost:11434/v1',
      api: 'chat',
      id: 'llama3.2',
    });
    expect(parseConfig({ OPENAI_API_KEY: 'sk-test', OPENAI_API: 'responses' }).model).toMatchObject({ apiKey: 'sk-test', api: 'responses' });
  });

  it('switches storage off for DATABASE_URL "none"', () => {
    expect(parseConfig({ DATABASE_URL: 'none' }).databaseUrl).toBeUndefined();
  });

  it('treats empty values as unset, so a copied .env.example starts with the defaults', () => {
    const config = parseConfig({ DATABASE_URL: '', OPENAI_BASE_URL: '', OPENAI_API_KEY: ' ', PORT: '' });
    expect(config.databaseUrl).toBe('file:./data/companion.db');
    expect(config.model).toBeUndefined();
    expect(config.server.port).toBe(4111);
  });

  it('names every bad key in one message', () => {
    expect(() => parseConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', OPENAI_BASE_URL: 'not a url' })).toThrowError(
      /Invalid configuration:\n {2}PORT: .*\n {2}OPENAI_BASE_URL: .*\n {2}LOG_LEVEL: .*/,
    );
  });

  it('refuses a DATABASE_URL it has no store for, naming the schemes it has', () => {
    expect(() => parseConfig({ DATABASE_URL: 'mysql://x' })).toThrowError(
      /DATABASE_URL: must start with file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//,
    );
  });

  it('stops start-up with that message and no stack trace (a real process: exit code 1)', async () => {
    const { code, output } = await runServiceToExit({ PORT: 'eighty', LOG_LEVEL: 'loud', DATABASE_URL: 'mysql://x' });
    expect(code).toBe(1);
    expect(output).toContain('Invalid configuration:');
    expect(output).toContain('PORT:');
    expect(output).toContain('LOG_LEVEL:');
    expect(output).toMatch(/DATABASE_URL: must start with file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//);
    expect(output).not.toMatch(/\n\s+at /);
  });
});

describe('with an unreachable model server', () => {
  it('answers 500 MODEL_ERROR saying the server could not be reached', async () => {
    const h = await startApp({ DATABASE_URL: 'none', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    try {
      const response = await h.post(GENERATE, userSays('Hi'));
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: 'The language model server could not be reached.', code: 'MODEL_ERROR', details: {} });
    } finally {
      await h.close();
    }
  });
});

describe('without a model', () => {
  it.each([
    ['production', 'production'],
    ['development', 'development'],
  ])('starts, and /generate explains how to configure one (%s: stack only in development)', async (_name, nodeEnv) => {
    // No key and no base URL: the stand-in stays unused.
    const h = await startApp({ DATABASE_URL: 'none', OPENAI_BASE_URL: '', OPENAI_API_KEY: '', NODE_ENV: nodeEnv });
    try {
      expect(h.config.model).toBeUndefined();
      const response = await h.post(GENERATE, userSays('Hi'));
      const body = await response.json();
      expect(response.status).toBe(500);
      expect(body.code).toBe('MODEL_ERROR');
      expect(body.error).toContain('OPENAI_API_KEY');
      expect(body.error).toContain('OPENAI_BASE_URL');
      if (nodeEnv === 'development') expect(body.stack).toEqual(expect.stringContaining('ApiError'));
      else expect(body).not.toHaveProperty('stack');
      expect(h.model.requests).toHaveLength(0);
    } finally {
      await h.close();
    }
  });
});
