/**
 * @module The persistence store `DATABASE_URL` names: LibSQL (a local file or a
 * libSQL server) or PostgreSQL.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IMastraLogger } from '@mastra/core/logger';
import type { MastraCompositeStore } from '@mastra/core/storage';
import { LibSQLStore } from '@mastra/libsql';
import { PostgresStore } from '@mastra/pg';
import { DATABASE_SCHEMES_TEXT, schemeOf } from '../../mastra.config.ts';

const STORE_ID = 'companion-store';

/**
 * The persistence store named by `DATABASE_URL`; `undefined` when storage is switched off.
 * A local `file:` suits one process; a libSQL server or PostgreSQL lets several replicas share one store.
 * With a `logger`, the store and each of its domains log through it.
 */
export function createStorage(databaseUrl: string | undefined, logger?: IMastraLogger): MastraCompositeStore | undefined {
  const store = storeFor(databaseUrl);
  if (store && logger) logThrough(store, logger);
  return store;
}

function storeFor(databaseUrl: string | undefined): MastraCompositeStore | undefined {
  if (!databaseUrl) return undefined;
  const scheme = schemeOf(databaseUrl);
  switch (scheme) {
    case 'file:':
      ensureParentDirectory(databaseUrl);
      return new LibSQLStore({ id: STORE_ID, url: databaseUrl });
    case 'libsql:':
    case 'http:':
    case 'https:':
      return new LibSQLStore({ id: STORE_ID, url: databaseUrl });
    case 'postgres:':
    case 'postgresql:':
      return new PostgresStore({ id: STORE_ID, connectionString: databaseUrl });
    default:
      // Only the scheme is named: the rest of the URL may hold a password.
      throw new Error(`Unsupported DATABASE_URL scheme "${scheme ?? ''}": use ${DATABASE_SCHEMES_TEXT}`);
  }
}

/**
 * Mastra gives a store that is not its own (this one is memory's) a console logger of its own:
 * its failures (an unreachable database at start-up, a failed query) would reach stderr as
 * multi-line text with stacks, beside the service's JSON lines.
 */
function logThrough(store: MastraCompositeStore, logger: IMastraLogger) {
  store.__setLogger(logger);
  for (const domain of Object.values(store.stores ?? {})) domain?.__setLogger(logger);
}

export function isPostgresUrl(databaseUrl: string): boolean {
  const scheme = schemeOf(databaseUrl);
  return scheme === 'postgres:' || scheme === 'postgresql:';
}

// LibSQL creates the database file but not its folder (`./data` on a fresh clone).
function ensureParentDirectory(fileUrl: string) {
  const path = fileUrl.startsWith('file://') ? fileURLToPath(fileUrl) : fileUrl.slice('file:'.length);
  if (path && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
}
