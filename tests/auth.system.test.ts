/** Authentication's rate limit across replicas: two apps on one real PostgreSQL database (the rest is auth.test.ts). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../mastra.config.ts';
import { createApp } from '../src/app.ts';
import { startOpenAIStandIn, type OpenAIStandIn } from './fixtures/openai-stand-in.ts';
import { startPostgres, type RunningPostgres } from './fixtures/postgres.ts';
import { standInEnv } from './fixtures/stand-in-env.ts';
import { call, hs256, TEST_JWT_SECRET } from './fixtures/tokens.ts';

describe('rate limiting on PostgreSQL', () => {
  let model: OpenAIStandIn;
  let postgres: RunningPostgres;
  beforeAll(async () => {
    [model, postgres] = await Promise.all([startOpenAIStandIn(), startPostgres()]);
  });
  afterAll(() => Promise.all([postgres.stop(), model.close()]));

  it('shares the count between two replicas on one database', async () => {
    const config = parseConfig({
      ...standInEnv(model),
      MODEL_MAX_RETRIES: '0',
      LOG_LEVEL: 'error',
      DATABASE_URL: postgres.url,
      MASTRA_JWT_SECRET: TEST_JWT_SECRET,
      RATE_LIMIT_PER_MINUTE: '3',
    });
    const [one, two] = await Promise.all([createApp(config), createApp(config)]);
    try {
      const token = await hs256({ sub: 'frank' });
      const statuses = [];
      for (const app of [one.app, two.app, one.app, two.app]) statuses.push((await call(app, 'GET', '/threads', { token })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});
