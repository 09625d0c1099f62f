import { LibSQLStore } from '@mastra/libsql';
import { PostgresStore } from '@mastra/pg';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStorage } from '../src/mastra/storage.ts';
import { GENERATE, startApp } from './fixtures/app-harness.ts';
import { startPostgres, type RunningPostgres } from './fixtures/postgres.ts';
import { runServiceToExit, tempDatabaseUrl } from './fixtures/service.ts';

describe('createStorage', () => {
  it('picks the store by the URL scheme', async () => {
    const libsqlUrls = [tempDatabaseUrl(), 'libsql://db.example.test', 'http://127.0.0.1:8080', 'https://db.example.test'];
    for (const url of libsqlUrls) expect(createStorage(url), url).toBeInstanceOf(LibSQLStore);

    for (const url of ['postgres://u@127.0.0.1:1/db', 'postgresql://u@127.0.0.1:1/db']) {
      const store = createStorage(url);
      expect(store, url).toBeInstanceOf(PostgresStore);
      await (store as PostgresStore).close();
    }
  });

  it('rejects an unknown scheme, naming the supported ones but not the URL (it may hold a password)', () => {
    const creating = () => createStorage('mysql://user:secret@db/companion');
    expect(creating).toThrowError(/Unsupported DATABASE_URL scheme "mysql:": use file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//);
    expect(creating).not.toThrowError(/secret/);
  });

  it('is off without a URL', () => {
    expect(createStorage(undefined)).toBeUndefined();
  });
});

describe('the service on PostgreSQL', () => {
  let postgres: RunningPostgres;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres?.stop());

  it('persists a thread and both messages of a turn', async () => {
    const h = await startApp({ DATABASE_URL: postgres.url });
    try {
      h.model.script({ text: 'Hello from PostgreSQL' });
      const response = await h.post(GENERATE, { messages: [{ role: 'user', content: 'Hi' }], threadId: 'pg-thread', resourceId: 'pg-user' });
      expect(response.status, await response.clone().text()).toBe(200);
    } finally {
      await h.close();
    }

    const threads = await query(postgres.url, 'SELECT id, "resourceId" FROM mastra_threads');
    expect(threads).toEqual([{ id: 'pg-thread', resourceId: 'pg-user' }]);
    const messages = await query(postgres.url, 'SELECT role, content FROM mastra_messages WHERE thread_id = $1 ORDER BY "createdAt"', ['pg-thread']);
    expect(messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(messages[1].content).toContain('Hello from PostgreSQL');
  });
});

describe('a DATABASE_URL with an unsupported scheme', () => {
  it('stops start-up with the configuration error naming DATABASE_URL', async () => {
    const { code, output } = await runServiceToExit({ DATABASE_URL: 'mysql://x' });
    expect(code).toBe(1);
    expect(output).toContain('Invalid configuration:');
    expect(output).toMatch(/DATABASE_URL: must start with file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//);
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
