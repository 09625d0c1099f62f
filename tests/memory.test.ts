import { describe, expect, it } from 'vitest';
import { GENERATE, STREAM, userSays, withApp } from './fixtures/app-harness.ts';
import { describeMemorySuite } from './fixtures/memory-suite.ts';
import { tempDatabaseUrl } from './fixtures/service.ts';

describeMemorySuite({
  name: 'LibSQL file',
  databaseUrl: async () => tempDatabaseUrl(),
  cleanUp: async () => {},
  secondInstance: 'a second instance of the service',
});

describe('memory switched off or unreachable', () => {
  it.each([
    ['switched off', 'none', 'switched off'],
    ['unreachable', 'http://127.0.0.1:9', 'unreachable'],
  ])('%s: requests that need memory get MEMORY_NOT_INITIALIZED, stateless ones work', async (_name, databaseUrl, wording) => {
    await withApp({ DATABASE_URL: databaseUrl }, async (h) => {
      h.model.script({ text: 'Stateless is fine.' });
      const stateless = await h.post(GENERATE, userSays('Hi'));
      expect(stateless.status).toBe(200);
      expect((await stateless.json()).text).toBe('Stateless is fine.');

      for (const response of [
        await h.post(GENERATE, { ...userSays('Hi'), threadId: 't', resourceId: 'u' }),
        await h.post(STREAM, { ...userSays('Hi'), resourceId: 'u' }),
        await h.get('/threads?resourceId=u'),
      ]) {
        expect(response.status).toBe(500);
        const body = await response.json();
        expect(body.code).toBe('MEMORY_NOT_INITIALIZED');
        expect(body.error).toContain(wording);
      }
      expect(h.model.requests).toHaveLength(1);
    });
  });
});

