import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_KEYS, findProjectRoot, parseConfig } from '../mastra.config.ts';
import { GENERATE, STREAM, userSays, withApp } from './fixtures/app-harness.ts';

const ROOT = '/srv/companion';
const PROJECT_ROOT = join(import.meta.dirname, '..');

describe('configuration', () => {
  it('has working defaults', () => {
    const config = parseConfig({}, ROOT);
    expect(config).toMatchObject({
      server: { port: 4111, host: 'localhost' },
      model: undefined,
      databaseUrl: 'file:/srv/companion/data/companion.db',
      tracing: undefined,
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

  it('switches storage off for DATABASE_URL empty or "none", and keeps the LibSQL file when it is unset', () => {
    for (const off of ['none', '', ' ']) expect(parseConfig({ DATABASE_URL: off }).databaseUrl, JSON.stringify(off)).toBeUndefined();
    expect(parseConfig({}, ROOT).databaseUrl).toBe('file:/srv/companion/data/companion.db');
  });

  it('treats other empty values as unset, so a copied .env.example starts with the defaults', () => {
    const config = parseConfig({ OPENAI_BASE_URL: '', OPENAI_API_KEY: ' ', PORT: '', DATA_DIR: '' }, ROOT);
    expect(config.databaseUrl).toBe('file:/srv/companion/data/companion.db');
    expect(config.model).toBeUndefined();
    expect(config.server.port).toBe(4111);
  });

  it('names every bad key in one message', () => {
    expect(() => parseConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', OPENAI_BASE_URL: 'not a url' })).toThrowError(
      /Invalid configuration:\n {2}PORT: .*\n {2}OPENAI_BASE_URL: .*\n {2}LOG_LEVEL: .*/,
    );
  });

  it("refuses an identity provider without an audience: any token of the provider's tenant would do", () => {
    expect(() => parseConfig({ AUTH_JWKS_URL: 'https://id.example/.well-known/jwks.json', AUTH_ISSUER: 'https://id.example/' })).toThrowError(
      /^Invalid configuration:\n {2}AUTH_AUDIENCE: is required with AUTH_JWKS_URL/,
    );
    expect(parseConfig({ AUTH_JWKS_URL: 'https://id.example/.well-known/jwks.json', AUTH_AUDIENCE: 'companion' }).auth.jwks).toEqual({
      jwksUrl: 'https://id.example/.well-known/jwks.json',
      issuer: undefined,
      audience: 'companion',
    });
  });

  it('refuses AUTH_ISSUER or AUTH_AUDIENCE without AUTH_JWKS_URL, rather than start with their check off', () => {
    for (const env of [{ AUTH_ISSUER: 'https://id.example/' }, { AUTH_AUDIENCE: 'companion', MASTRA_JWT_SECRET: 'a-secret-that-is-at-least-32-characters' }]) {
      const [key] = Object.keys(env);
      expect(() => parseConfig(env), key).toThrowError(`Invalid configuration:\n  ${key}: applies to tokens verified by AUTH_JWKS_URL, which is not set`);
    }
  });

  it('names the keys of a broken rule across keys beside the other bad keys, in the same message', () => {
    expect(() => parseConfig({ PORT: 'abc', SERVER_MODE: 'development', HOST: '0.0.0.0' })).toThrowError(
      /^Invalid configuration:\n {2}PORT: .*\n {2}HOST: development mode opens Mastra's own routes for Studio; bind it to localhost, 127\.0\.0\.1, ::1$/,
    );
    expect(() => parseConfig({ STT_PROVIDER: 'openai', PORT: '99999' })).toThrowError(
      /^Invalid configuration:\n {2}PORT: .*\n {2}STT_PROVIDER: openai needs STT_API_KEY or OPENAI_API_KEY/,
    );
    expect(() => parseConfig({ LOG_LEVEL: 'loud', HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' })).toThrowError(
      /^Invalid configuration:\n {2}LOG_LEVEL: .*\n {2}HEADERS_TIMEOUT_MS: must not be longer than REQUEST_TIMEOUT_MS$/,
    );
  });

  it('refuses a server URL holding a user name or password, without repeating it: fetch refuses such a URL on every call, naming it', () => {
    const keys = ['OPENAI_BASE_URL', 'STT_BASE_URL', 'AUTH_JWKS_URL', 'OPEN_METEO_GEOCODING_URL', 'OPEN_METEO_FORECAST_URL'];
    for (const key of keys) {
      const env = { OPENAI_API_KEY: 'sk-test', AUTH_AUDIENCE: 'companion', [key]: 'https://alice:PASSWORD-CANARY@server.example/v1' };
      expect(() => parseConfig(env), key).toThrowError(
        `Invalid configuration:\n  ${key}: must not hold a user name or password (user:password@): fetch refuses such a URL; give a key in its own setting`,
      );
    }
    expect(() => parseConfig({ OPENAI_BASE_URL: 'https://alice@server.example/v1' })).toThrowError(/OPENAI_BASE_URL: must not hold a user name/);
    for (const url of ['libsql://alice:PASSWORD-CANARY@db.example', 'http://alice:PASSWORD-CANARY@127.0.0.1:8080']) {
      expect(() => parseConfig({ DATABASE_URL: url }), url).toThrowError(
        'Invalid configuration:\n  DATABASE_URL: a LibSQL server URL must not hold a user name or password (user:password@); give its token as ?authToken=',
      );
    }
    expect(parseConfig({ DATABASE_URL: 'postgres://companion:secret@db.example/companion' }).databaseUrl).toBe('postgres://companion:secret@db.example/companion');
    expect(parseConfig({ DATABASE_URL: 'libsql://db.example?authToken=abc' }).databaseUrl).toBe('libsql://db.example?authToken=abc');
  });

  it('refuses a DATABASE_URL it has no store for, naming the schemes it has', () => {
    expect(() => parseConfig({ DATABASE_URL: 'mysql://x' })).toThrowError(
      /DATABASE_URL: must start with file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//,
    );
  });
});

describe('the documented configuration', () => {
  const keysIn = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((match) => match[1]).sort();

  it('.env.example sets exactly the keys the service reads', () => {
    const example = readFileSync(join(PROJECT_ROOT, '.env.example'), 'utf8');
    // A key whose every value changes something (DATABASE_URL) is there commented out.
    expect(keysIn(example, /^(?:# )?([A-Z][A-Z0-9_]*)=/gm)).toEqual([...CONFIG_KEYS].sort());
  });

  it("the README's configuration table lists exactly those keys", () => {
    const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const section = readme.split(/^## /m).find((part) => part.startsWith('Configuration\n'));
    expect(section, 'README has a "## Configuration" section').toBeDefined();
    const firstCells = section!.split('\n').filter((line) => line.startsWith('| `')).map((row) => row.split('|')[1]);
    expect(keysIn(firstCells.join('\n'), /`([A-Z][A-Z0-9_]*)`/g)).toEqual([...CONFIG_KEYS].sort());
  });
});

describe('local files: one database for npm start, npm run dev and the built output', () => {
  it('resolves a relative file: URL against the project root, and leaves other URLs as given', () => {
    const databaseUrl = (url: string) => parseConfig({ DATABASE_URL: url }, ROOT).databaseUrl;
    expect(databaseUrl('file:./data/companion.db')).toBe('file:/srv/companion/data/companion.db');
    expect(databaseUrl('file:state/c.db')).toBe('file:/srv/companion/state/c.db');
    expect(databaseUrl('file:../shared/c.db')).toBe('file:/srv/shared/c.db');
    expect(databaseUrl('file:/var/lib/companion/c.db')).toBe('file:/var/lib/companion/c.db');
    expect(databaseUrl('file:///var/lib/companion/c.db')).toBe('file:///var/lib/companion/c.db');
    expect(databaseUrl('file::memory:')).toBe('file::memory:');
    expect(databaseUrl('libsql://db.example.com')).toBe('libsql://db.example.com');
    expect(databaseUrl('postgres://u:p@db/companion')).toBe('postgres://u:p@db/companion');
  });

  it('keeps the default database and the traces in DATA_DIR, relative to the project root unless absolute', () => {
    expect(parseConfig({ DATA_DIR: 'state', TRACING: 'on' }, ROOT)).toMatchObject({
      databaseUrl: 'file:/srv/companion/state/companion.db',
      tracing: { storePath: '/srv/companion/state/traces.duckdb' },
    });
    expect(parseConfig({ DATA_DIR: '/var/lib/companion' }, ROOT).databaseUrl).toBe('file:/var/lib/companion/companion.db');
    // An explicit DATABASE_URL wins over DATA_DIR.
    expect(parseConfig({ DATA_DIR: '/var/lib/companion', DATABASE_URL: 'file:/elsewhere/c.db' }, ROOT).databaseUrl).toBe(
      'file:/elsewhere/c.db',
    );
  });

  it('finds the project root from any folder inside it (a build in .mastra/output too), else uses the fallback', () => {
    const checkout = mkdtempSync(join(tmpdir(), 'companion-root-'));
    writeFileSync(join(checkout, 'package.json'), JSON.stringify({ name: 'companion-agent' }));
    const output = join(checkout, '.mastra', 'output');
    mkdirSync(output, { recursive: true });
    // mastra build writes its own package.json into the output; it is not the project's.
    writeFileSync(join(output, 'package.json'), JSON.stringify({ name: 'server' }));
    expect(findProjectRoot(output, '/fallback')).toBe(checkout);
    expect(findProjectRoot(checkout, '/fallback')).toBe(checkout);
    expect(findProjectRoot(tmpdir(), '/fallback')).toBe('/fallback');
    expect(findProjectRoot()).toBe(PROJECT_ROOT);
  });
});

describe('tracing', () => {
  it('is on under `npm run dev` (mastra dev sets MASTRA_DEV=true) and off otherwise, unless TRACING says', () => {
    expect(parseConfig({}, ROOT).tracing).toBeUndefined();
    expect(parseConfig({ MASTRA_DEV: 'true' }, ROOT).tracing).toEqual({ storePath: '/srv/companion/data/traces.duckdb' });
    expect(parseConfig({ MASTRA_DEV: 'true', TRACING: 'off' }, ROOT).tracing).toBeUndefined();
    expect(parseConfig({ TRACING: 'on' }, ROOT).tracing).toEqual({ storePath: '/srv/companion/data/traces.duckdb' });
    expect(() => parseConfig({ TRACING: 'yes' }, ROOT)).toThrowError(/TRACING: /);
  });
});

describe("Mastra's usage analytics", () => {
  it('are off unless MASTRA_TELEMETRY_DISABLED is false (Mastra itself sends them unless it is set)', () => {
    expect(parseConfig({}, ROOT).mastraTelemetry).toBe(false);
    expect(parseConfig({ MASTRA_TELEMETRY_DISABLED: '' }, ROOT).mastraTelemetry).toBe(false);
    expect(parseConfig({ MASTRA_TELEMETRY_DISABLED: '1' }, ROOT).mastraTelemetry).toBe(false);
    expect(parseConfig({ MASTRA_TELEMETRY_DISABLED: 'false' }, ROOT).mastraTelemetry).toBe(true);
    expect(() => parseConfig({ MASTRA_TELEMETRY_DISABLED: 'maybe' }, ROOT)).toThrowError(/MASTRA_TELEMETRY_DISABLED: /);
  });
});

describe('with an unreachable model server', () => {
  it('answers 500 MODEL_ERROR saying the server could not be reached', async () => {
    await withApp({ DATABASE_URL: 'none', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, async (h) => {
      const response = await h.post(GENERATE, userSays('Hi'));
      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({ error: 'The language model server could not be reached.', code: 'MODEL_ERROR', details: {} });
    });
  });
});

describe('without a model', () => {
  it.each([
    ['production', 'production'],
    ['development', 'development'],
  ])('starts, and /generate explains how to configure one (%s: stack only in development)', async (_name, nodeEnv) => {
    // No key and no base URL: the stand-in stays unused.
    await withApp({ DATABASE_URL: 'none', OPENAI_BASE_URL: '', OPENAI_API_KEY: '', NODE_ENV: nodeEnv }, async (h) => {
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
    });
  });

  it('answers a native client (client-js, Studio) the same, on both routes, and opens no thread', async () => {
    await withApp({ OPENAI_BASE_URL: '', OPENAI_API_KEY: '' }, async (h) => {
      for (const path of [GENERATE, STREAM]) {
        const response = await h.post(path, { messages: 'Hi', memory: { thread: 'native-no-model', resource: 'u-1' } }, { 'x-mastra-client-type': 'client-js' });
        expect(response.status, path).toBe(500);
        const body = await response.json();
        expect(body.code, path).toBe('MODEL_ERROR');
        expect(body.error, path).toContain('OPENAI_API_KEY');
      }
      expect((await (await h.get('/threads?resourceId=u-1')).json()).threads).toEqual([]);
    });
  });
});
