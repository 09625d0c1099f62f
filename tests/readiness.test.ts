import { rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withApp } from './fixtures/app-harness.ts';
import { probeReadiness as probe } from './fixtures/readiness-probe.ts';
import { tempDatabaseUrl } from './fixtures/service.ts';
import { TEST_JWT_SECRET } from './fixtures/tokens.ts';

describe('GET /ready', () => {
  it('answers 200 with a timed store query and the model when everything can work, without a token', async () => {
    const { status, body } = await probe({ OPENAI_API_KEY: 'k', DATABASE_URL: tempDatabaseUrl(), MASTRA_JWT_SECRET: TEST_JWT_SECRET });
    expect(status).toBe(200);
    expect(body.status).toBe('ready');
    expect(body.checks.store).toEqual({ ok: true, latencyMs: expect.any(Number) });
    expect(body.checks.model).toEqual({ ok: true, detail: 'gpt-4o-mini via the Chat Completions API' });
  });

  it('answers 503 naming the model when none is configured', async () => {
    const { status, body } = await probe({ DATABASE_URL: 'none' });
    expect(status).toBe(503);
    expect(body.checks.model).toEqual({ ok: false, detail: expect.stringContaining('OPENAI_API_KEY') });
    expect(body.checks.store.ok).toBe(true);
  });

  it('answers 503 when the store cannot be queried, without its URL', async () => {
    const { status, body } = await probe({ OPENAI_API_KEY: 'k', DATABASE_URL: 'postgres://user:hunter2@127.0.0.1:9/nothing' });
    expect(status).toBe(503);
    expect(body.checks.store).toEqual({ ok: false, detail: 'the conversation store did not answer a query' });
    expect(JSON.stringify(body)).not.toContain('hunter2');
  });

  // Every query still answered from the deleted file, and the turns written there were lost at the next start.
  it('answers 503 when the database file was deleted or replaced while the service runs', async () => {
    for (const change of ['deleted', 'replaced'] as const) {
      const databaseUrl = tempDatabaseUrl();
      const path = fileURLToPath(databaseUrl);
      await withApp({ DATABASE_URL: databaseUrl }, async ({ app }) => {
        expect((await app.request('/ready')).status, change).toBe(200);
        for (const file of [path, `${path}-wal`, `${path}-shm`]) rmSync(file, { force: true });
        if (change === 'replaced') writeFileSync(path, '');
        const ready = await app.request('/ready');
        expect(ready.status, change).toBe(503);
        expect((await ready.json()).checks.store, change).toEqual({ ok: false, detail: expect.stringContaining(`the database file was ${change} while the service runs`) });
      });
    }
  });

  it("goes through the service's middleware like every route: a trace id, the query guard, 405 for another method", async () => {
    await withApp({ MASTRA_JWT_SECRET: TEST_JWT_SECRET }, async ({ app }) => {
      const ready = await app.request('/ready');
      expect(ready.status).toBe(200);
      expect(ready.headers.get('x-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect((await app.request('/ready', { method: 'HEAD' })).status).toBe(200);
      const polluting = await app.request('/ready?constructor=1');
      expect(polluting.status).toBe(400);
      expect(await polluting.json()).toMatchObject({ code: 'INVALID_REQUEST' });
      const posted = await app.request('/ready', { method: 'POST' });
      expect(posted.status).toBe(405);
      expect(posted.headers.get('allow')).toBe('GET');
    });
  });
});
