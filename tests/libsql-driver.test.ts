/**
 * The embedded LibSQL driver as patched (patches/@libsql+client+*.patch):
 * - a connection keeps its prepared statements and their columns, and a schema change made through it drops
 *   them, so rows never come back under stale column names;
 * - a connection setting the client runs (`PRAGMA synchronous = NORMAL`) holds on every connection of its
 *   pool, as it did when a client was one connection.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { onEachConnection } from './fixtures/libsql-connections.ts';

let dir: string;
let client: Client;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'libsql-driver-'));
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

describe('connection settings', () => {
  const settingOnEachConnection = (pragma: string, count = 4) =>
    onEachConnection(client, count, async (connection) => Number((await connection.execute(`PRAGMA ${pragma}`)).rows[0][0]));
  const NORMAL = 1;
  const FULL = 2;

  it('gives every connection of the pool a setting run through the client, the ones opened later too', async () => {
    expect(await settingOnEachConnection('synchronous', 2)).toEqual([FULL, FULL]);
    await client.execute('PRAGMA synchronous = NORMAL;');
    expect(await settingOnEachConnection('synchronous', 4)).toEqual([NORMAL, NORMAL, NORMAL, NORMAL]);
    await client.execute('PRAGMA busy_timeout = 7000');
    expect(await settingOnEachConnection('busy_timeout', 4)).toEqual([7000, 7000, 7000, 7000]);
    expect(await settingOnEachConnection('synchronous', 4)).toEqual([NORMAL, NORMAL, NORMAL, NORMAL]);
  });

  it('gives a setting to a connection handed straight to a call waiting for one', async () => {
    const twoConnections = createClient({ url: `file:${join(dir, 'test.db')}`, concurrency: 2 });
    try {
      const tx = await twoConnections.transaction('read'); // the first connection, opened before the setting
      await twoConnections.execute('PRAGMA synchronous = NORMAL;'); // run on the second
      const reads = Array.from({ length: 3 }, () => twoConnections.execute('PRAGMA synchronous')); // one runs, two wait
      tx.close(); // its connection goes straight to a waiting read
      expect((await Promise.all(reads)).map((result) => Number(result.rows[0][0]))).toEqual([NORMAL, NORMAL, NORMAL]);
    } finally {
      twoConnections.close();
    }
  });

  it('keeps a setting made inside a transaction to that transaction\'s connection', async () => {
    const tx = await client.transaction('read');
    await tx.execute('PRAGMA cache_size = 123');
    tx.close();
    const cacheSizes = await settingOnEachConnection('cache_size', 3);
    expect(cacheSizes.filter((size) => size === 123)).toHaveLength(1);
  });
});
