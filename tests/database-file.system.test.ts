import { copyFileSync, existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createStorage } from '../src/mastra/storage.ts';
import { GENERATE, startCompanion, userSays } from './fixtures/companion-harness.ts';
import { tempDatabaseUrl } from './fixtures/service.ts';
import { storedMessages } from './fixtures/stored-messages.ts';

// README "Backups of the database": with the service stopped, copying companion.db is enough.
it('after a SIGTERM the database file alone holds every turn: its write-ahead log is folded back in', async () => {
  const databaseUrl = tempDatabaseUrl();
  const file = databaseUrl.slice('file:'.length);
  const h = await startCompanion({ DATABASE_URL: databaseUrl });
  try {
    h.model.script({ text: 'Hello Ada.' }, { text: 'Still here.' });
    const ids = { threadId: 'backed-up', resourceId: 'ada' };
    expect((await h.post(GENERATE, { ...userSays('Hi, I am Ada.'), ...ids })).status).toBe(200);
    expect((await h.post(GENERATE, { ...userSays('Are you there?'), ...ids })).status).toBe(200);
    // While it runs, the turns are in the write-ahead log: a small database never reaches SQLite's automatic checkpoint.
    expect(statSync(`${file}-wal`).size).toBeGreaterThan(0);
  } finally {
    await h.close();
  }
  expect(existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0).toBe(0);

  const copy = join(mkdtempSync(join(tmpdir(), 'companion-backup-')), 'companion.db');
  copyFileSync(file, copy);
  const restored = createStorage(`file:${copy}`)!;
  try {
    expect(await storedMessages(restored, 'backed-up')).toEqual([
      ['user', 'Hi, I am Ada.'],
      ['assistant', 'Hello Ada.'],
      ['user', 'Are you there?'],
      ['assistant', 'Still here.'],
    ]);
  } finally {
    await restored.close();
  }
});
