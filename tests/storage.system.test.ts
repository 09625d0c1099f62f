import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATE, withApp } from './fixtures/app-harness.ts';
import { startPostgres, type RunningPostgres } from './fixtures/postgres.ts';

// The rows a turn leaves in PostgreSQL's own tables (createStorage's choice of store: src/mastra/storage.test.ts).
describe('the service on PostgreSQL', () => {
  let postgres: RunningPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());

  it('persists a thread and both messages of a turn', async () => {
    await withApp({ DATABASE_URL: postgres.url }, async (h) => {
      h.model.script({ text: 'Hello from PostgreSQL' });
      const response = await h.post(GENERATE, { messages: [{ role: 'user', content: 'Hi' }], threadId: 'pg-thread', resourceId: 'pg-user' });
      expect(response.status, await response.clone().text()).toBe(200);
    });

    const threads = await query(postgres.url, 'SELECT id, "resourceId" FROM mastra_threads');
    expect(threads).toEqual([{ id: 'pg-thread', resourceId: 'pg-user' }]);
    const messages = await query(postgres.url, 'SELECT role, content FROM mastra_messages WHERE thread_id = $1 ORDER BY "createdAt"', ['pg-thread']);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(messages[1].content).toContain('Hello from PostgreSQL');
  });
});

// A separate client, so the assertions read what PostgreSQL holds, not what Mastra's store reports.
async function query(url: string, sql: string, params: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}
