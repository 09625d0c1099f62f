import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LibSQLStore } from '@mastra/libsql';

/** The persistence store named by `DATABASE_URL`; `undefined` when storage is switched off. */
export function createStorage(databaseUrl: string | undefined) {
  if (!databaseUrl) return undefined;
  if (databaseUrl.startsWith('file:')) ensureParentDirectory(databaseUrl);
  return new LibSQLStore({ id: 'companion-store', url: databaseUrl });
}

// LibSQL creates the database file but not its folder (`./data` on a fresh clone).
function ensureParentDirectory(fileUrl: string) {
  const path = fileUrl.startsWith('file://') ? fileURLToPath(fileUrl) : fileUrl.slice('file:'.length);
  if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
}
