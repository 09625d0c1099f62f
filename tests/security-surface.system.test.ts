/** The query pollution attempts of security-surface.test.ts, sent over real HTTP to a real service process. */
import { describe, expect, it } from 'vitest';
import { GENERATE, startCompanion, userSays } from './fixtures/companion-harness.ts';
import { POLLUTED_QUERY_KEYS as KEYS, ROUTE_FAMILIES as FAMILIES } from './fixtures/query-pollution.ts';

describe('query pollution (`?__proto__[x]=1`)', () => {
  it('keeps a real server answering /generate after the attempts (real HTTP)', async () => {
    const h = await startCompanion();
    try {
      for (const [method, path] of FAMILIES) {
        for (const key of KEYS) {
          const url = `${h.service.url}${path}${path.includes('?') ? '&' : '?'}${key}`;
          await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
        }
      }
      await fetch(`${h.service.url}/api/auth/capabilities?__proto__[then]=1`);
      h.model.script({ text: 'Unharmed.' });
      const response = await h.post(GENERATE, userSays('Hi'));
      expect(response.status).toBe(200);
      expect((await response.json()).text).toBe('Unharmed.');
    } finally {
      await h.close();
    }
  });
});
