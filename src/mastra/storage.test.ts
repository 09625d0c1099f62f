import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LibSQLStore } from '@mastra/libsql';
import { PostgresStore } from '@mastra/pg';
import { expect, it } from 'vitest';
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

it('rejects an unknown scheme, naming the supported ones but not the URL (it may hold a password)', () => {
  const creating = () => createStorage('mysql://user:secret@db/companion');
  expect(creating).toThrowError(/Unsupported DATABASE_URL scheme "mysql:": use file:, libsql:\/\/, http\(s\):\/\/ or postgres\(ql\):\/\//);
  expect(creating).not.toThrowError(/secret/);
});

it('is off without a URL', () => {
  expect(createStorage(undefined)).toBeUndefined();
});
