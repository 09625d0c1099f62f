import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Mastra } from '@mastra/core/mastra';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../mastra.config.ts';
import { createApp } from '../src/app.ts';
import { startOpenAIStandIn, type OpenAIStandIn } from './fixtures/openai-stand-in.ts';
import { startOpenMeteoStandIn, type OpenMeteoStandIn } from './fixtures/open-meteo-stand-in.ts';
import { GENERATE } from './fixtures/companion-harness.ts';
import { standInEnv } from './fixtures/stand-in-env.ts';

let model: OpenAIStandIn;
let weather: OpenMeteoStandIn;

beforeAll(async () => {
  [model, weather] = await Promise.all([startOpenAIStandIn(), startOpenMeteoStandIn()]);
});

afterAll(async () => {
  await Promise.all([model.close(), weather.close()]);
});

async function companion(env: Record<string, string>) {
  return createApp(
    parseConfig({
      LOG_LEVEL: 'error',
      // Studio's observability routes, which read the traces, are open in development mode only.
      SERVER_MODE: 'development',
      RATE_LIMIT_PER_MINUTE: '0',
      ...standInEnv(model, weather),
      ...env,
    }),
  );
}

type App = Awaited<ReturnType<typeof companion>>['app'];

async function weatherTurn(app: App): Promise<string> {
  model.script({ toolCalls: [{ name: 'weatherTool', args: { location: 'Paris' } }] }, { text: 'Mild in Paris.' });
  const response = await app.request(GENERATE, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ role: 'user', content: 'Weather in Paris?' }], threadId: 'trip', resourceId: 'ana' }),
  });
  expect(response.status).toBe(200);
  expect((await response.json()).text).toBe('Mild in Paris.');
  return response.headers.get('x-trace-id')!;
}

/**
 * Studio's own query for the Traces page. Spans are written in batches (every few seconds): the exporters are
 * flushed first, as they would be in time, so the trace is there without waiting for the batch timer.
 */
async function firstTrace(app: App, mastra: Mastra) {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    await mastra.observability.flush();
    const now = Date.now();
    const response = await app.request('/api/observability/traces/query', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        timeRange: { from: new Date(now - 3_600_000).toISOString(), to: new Date(now + 60_000).toISOString() },
        orderBy: [{ field: 'startedAt', direction: 'desc' }],
        page: { limit: 25, after: null },
      }),
    });
    expect(response.status).toBe(200);
    const { traces } = await response.json();
    if (traces.length > 0) return traces[0];
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('no trace was stored within 30 s');
}

describe('tracing on', () => {
  it("stores each turn's spans locally, where Studio's Traces page finds them: agent run, model call, tool call, timed", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'companion-traces-'));
    const { app, mastra, close } = await companion({ TRACING: 'on', DATA_DIR: dataDir });
    try {
      const exporters = mastra.observability.getDefaultInstance()?.getExporters().map((exporter) => exporter.name);
      // The only exporter writes to the local store: nothing of a prompt leaves the machine.
      expect(exporters).toEqual(['mastra-storage-exporter']);

      const requestTraceId = await weatherTurn(app);
      const trace = await firstTrace(app, mastra);
      expect(trace).toMatchObject({ entityId: 'companionAgent', threadId: 'trip', resourceId: 'ana', status: 'success' });
      // The request's x-trace-id (also in its log line) finds the trace.
      expect(trace.metadata).toMatchObject({ requestTraceId });

      const { spans } = await (await app.request(`/api/observability/traces/${trace.traceId}`)).json();
      const span = (name: string) => spans.find((s: { name: string }) => s.name === name);
      expect(span("agent run: 'companionAgent'")).toMatchObject({ spanType: 'agent_run' });
      expect(span("llm: 'stand-in-model'")).toMatchObject({ spanType: 'model_generation' });
      // The model call's span shows the conversation it was given (built for the span only when tracing is on).
      const modelInput = span("llm: 'stand-in-model'").input.messages.map((m: { role: string; content: unknown }) => [m.role, JSON.stringify(m.content)]);
      expect(modelInput).toContainEqual(['user', expect.stringContaining('Weather in Paris?')]);
      const tool = span("tool: 'weatherTool'");
      expect(tool).toMatchObject({ spanType: 'tool_call', input: { location: 'Paris' }, output: { location: 'Paris, France' } });
      expect(Date.parse(tool.endedAt)).toBeGreaterThanOrEqual(Date.parse(tool.startedAt));
      expect(existsSync(join(dataDir, 'traces.duckdb'))).toBe(true);
    } finally {
      await close();
    }
  });

  it("keeps no log lines with the traces: they would skip the log's redaction (the model server's message, at debug the conversation)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'companion-traces-'));
    const { app, mastra, close } = await companion({ TRACING: 'on', DATA_DIR: dataDir, LOG_LEVEL: 'debug', MODEL_MAX_RETRIES: '0' });
    try {
      model.script({ error: { status: 500, message: 'boom sk-LOGCANARY-1234' } });
      const failed = await app.request(GENERATE, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'My secret diary' }], threadId: 'diary', resourceId: 'ana' }),
      });
      expect(failed.status).toBe(500);
      await weatherTurn(app);
      await firstTrace(app, mastra);
      const store = await mastra.getStorage()!.getStore('observability');
      expect((await store!.listLogs({ pagination: { page: 0, perPage: 100 } })).logs).toEqual([]);
    } finally {
      await close();
    }
  });

  it('costs only the traces, never a turn, when the trace store cannot be opened', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'companion-traces-'));
    // A folder where the DuckDB file should be: the store can never open it.
    mkdirSync(join(dataDir, 'traces.duckdb'));
    const { app, close } = await companion({ TRACING: 'on', DATA_DIR: dataDir });
    try {
      await weatherTurn(app);
      await weatherTurn(app);
    } finally {
      await close();
    }
  });
});

describe('tracing off (the default outside npm run dev)', () => {
  it('records nothing and creates no trace store', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'companion-traces-'));
    const { app, mastra, close } = await companion({ DATA_DIR: dataDir });
    try {
      expect(mastra.observability.getDefaultInstance()).toBeUndefined();
      await weatherTurn(app);
      const { spans } = await (await app.request('/api/observability/traces')).json();
      expect(spans).toEqual([]);
      expect(existsSync(join(dataDir, 'traces.duckdb'))).toBe(false);
    } finally {
      await close();
    }
  });
});
