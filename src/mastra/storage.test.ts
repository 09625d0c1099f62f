import { copyFileSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@libsql/client';
import { LibSQLStore } from '@mastra/libsql';
import { PostgresStore } from '@mastra/pg';
import { expect, it } from 'vitest';
import { onEachConnection } from '../../tests/fixtures/libsql-connections.ts';
import { createStorage } from './storage.ts';

it('picks the store by the URL scheme', async () => {
  const fileUrl = `file:${join(mkdtempSync(join(tmpdir(), 'companion-')), 'nested', 'companion.db')}`;
  const libsqlUrls = [fileUrl, 'libsql://db.example.test', 'http://127.0.0.1:8080', 'https://db.example.test'];
  for (const url of libsqlUrls) expect(createStorage(url), url).toBeInstanceOf(LibSQLStore);

  for (const url of ['postgres://u@127.0.0.1:1/db', 'postgresql://u@127.0.0.1:1/db']) {
    const store = createStorage(url);
    expect(store, url).toBeInstanceOf(PostgresStore);
    await (store as PostgresStore).close();
  }
});

it("makes the database, its write-ahead log and its folder for this user alone: LibSQL would make them readable by all", async () => {
  const folder = join(mkdtempSync(join(tmpdir(), 'companion-')), 'data');
  const file = join(folder, 'companion.db');
  const store = createStorage(`file:${file}`) as LibSQLStore;
  await store.init();
  await store.getStore('memory').then((memory) => memory!.saveThread({ thread: { id: 't', resourceId: 'u', title: '', createdAt: new Date(), updatedAt: new Date() } }));
  expect([folder, file, `${file}-wal`].map((path) => (statSync(path).mode & 0o777).toString(8))).toEqual(['700', '600', '600']);
  await store.close();
});

it('rejects an unknown scheme, naming the supported ones but not the URL (it may hold a password)', () => {
  const creating = () => createStorage('mysql://user:secret@db/companion');
  expect(creating).toThrowError(/Unsupported DATABASE_URL scheme "mysql:": use file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//);
  expect(creating).not.toThrowError(/secret/);
});

it('is off without a URL', () => {
  expect(createStorage(undefined)).toBeUndefined();
});

it('runs every connection of a LibSQL file store at the durability the store sets (WAL, synchronous NORMAL)', async () => {
  const store = createStorage(`file:${join(mkdtempSync(join(tmpdir(), 'companion-')), 'companion.db')}`) as LibSQLStore;
  await store.init();
  // The store keeps its client private; the test asks its connections directly.
  const { client } = store as unknown as { client: Client };
  try {
    const settings = await onEachConnection(client, 4, async (connection) => {
      const [journal, synchronous] = await Promise.all([connection.execute('PRAGMA journal_mode'), connection.execute('PRAGMA synchronous')]);
      return `${journal.rows[0][0]}/${synchronous.rows[0][0]}`;
    });
    expect(settings).toEqual(['wal/1', 'wal/1', 'wal/1', 'wal/1']);
  } finally {
    client.close();
  }
});

it('a LibSQL file, once closed, holds what was written without its -wal file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'companion-'));
  const store = createStorage(`file:${join(dir, 'companion.db')}`)!;
  await store.init();
  const memory = (await store.getStore('memory'))!;
  await memory.saveThread({ thread: { id: 't', resourceId: 'u', title: 'Kept', createdAt: new Date(), updatedAt: new Date(), metadata: {} } });
  expect(statSync(join(dir, 'companion.db-wal')).size).toBeGreaterThan(0);
  await store.close();
  expect(statSync(join(dir, 'companion.db-wal')).size).toBe(0);

  const copy = join(mkdtempSync(join(tmpdir(), 'companion-copy-')), 'companion.db');
  copyFileSync(join(dir, 'companion.db'), copy);
  const restored = createStorage(`file:${copy}`)!;
  await restored.init();
  expect((await (await restored.getStore('memory'))!.getThreadById({ threadId: 't' }))?.title).toBe('Kept');
  await restored.close();
});
