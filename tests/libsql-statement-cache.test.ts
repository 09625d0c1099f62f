/**
 * The embedded LibSQL driver as patched (patches/@libsql+client+*.patch): a connection keeps its prepared
 * statements and their columns, and a schema change made through it drops them, so rows never come back
 * under stale column names.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { afterEach, beforeEach, expect, it } from 'vitest';

let dir: string;
let client: Client;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'libsql-cache-'));
  client = createClient({ url: `file:${join(dir, 'test.db')}` });
  await client.execute('CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT)');
  await client.execute({ sql: 'INSERT INTO notes VALUES (?, ?)', args: ['a', 'first'] });
});
afterEach(() => {
  client.close();
  rmSync(dir, { recursive: true, force: true });
});

it('answers a repeated statement with its own rows and column names each time', async () => {
  const first = await client.execute({ sql: 'SELECT id, body FROM notes WHERE id = ?', args: ['a'] });
  await client.execute({ sql: 'INSERT INTO notes VALUES (?, ?)', args: ['b', 'second'] });
  const second = await client.execute({ sql: 'SELECT id, body FROM notes WHERE id = ?', args: ['b'] });
  expect(first.columns).toEqual(['id', 'body']);
  expect(second.columns).toEqual(['id', 'body']);
  expect({ ...first.rows[0] }).toEqual({ id: 'a', body: 'first' });
  expect({ ...second.rows[0] }).toEqual({ id: 'b', body: 'second' });
});

it('sees a column added by ALTER TABLE in a statement it ran before', async () => {
  expect((await client.execute('SELECT * FROM notes')).columns).toEqual(['id', 'body']);
  await client.execute("ALTER TABLE notes ADD COLUMN mood TEXT DEFAULT 'calm'");
  const after = await client.execute('SELECT * FROM notes');
  expect(after.columns).toEqual(['id', 'body', 'mood']);
  expect({ ...after.rows[0] }).toEqual({ id: 'a', body: 'first', mood: 'calm' });
});

it('sees a table recreated by a multi-statement script with other columns', async () => {
  expect((await client.execute('SELECT * FROM notes')).columns).toEqual(['id', 'body']);
  await client.executeMultiple("DROP TABLE notes; CREATE TABLE notes (title TEXT, id TEXT); INSERT INTO notes VALUES ('hello', 'c');");
  const after = await client.execute('SELECT * FROM notes');
  expect(after.columns).toEqual(['title', 'id']);
  expect({ ...after.rows[0] }).toEqual({ title: 'hello', id: 'c' });
});
