/**
 * @module The persistence store `DATABASE_URL` names: LibSQL (a local file or a
 * libSQL server) or PostgreSQL.
 */
import { accessSync, closeSync, constants, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createClient } from '@libsql/client';
import type { IMastraLogger } from '@mastra/core/logger';
import type { MastraCompositeStore } from '@mastra/core/storage';
import { LibSQLStore } from '@mastra/libsql';
import { PostgresStore } from '@mastra/pg';
import pg from 'pg';
import { databaseKindOf, DATABASE_SCHEMES_TEXT, schemeOf } from '../../mastra.config.ts';
import { outsideRequests } from '../observability/request-trace.ts';
import { StartupRefusal } from '../startup-refusal.ts';

const STORE_ID = 'companion-store';

/**
 * How long the service waits for PostgreSQL to connect, or to answer one of its short statements (a lock try, a
 * rate-limit count), before it takes the database for unreachable. A database that answers does so in
 * milliseconds; one that has hung (it accepts connections, then says nothing) would otherwise hold each request
 * until Mastra's handler timeout. Not a setting: it bounds a wait for an answer, not work.
 */
export const POSTGRES_WAIT_MS = 2_000;

/** `pg` client and pool options that bound a connection and each of its statements by `POSTGRES_WAIT_MS`. */
export const POSTGRES_TIMEOUTS = { connectionTimeoutMillis: POSTGRES_WAIT_MS, query_timeout: POSTGRES_WAIT_MS };

/**
 * The store's statements do real work too (its tables and indexes at start-up, a long thread's deletion), so one
 * may take longer than a wait for an answer; a hung database is still told by its connection (`POSTGRES_WAIT_MS`).
 */
const STORE_STATEMENT_MS = 30_000;

/** The size Mastra gives a pool it builds itself. */
const POSTGRES_POOL_SIZE = 20;

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
  switch (databaseKindOf(databaseUrl)) {
    case 'libsql-file':
      ensureWritableDatabaseFile(filePathOf(databaseUrl));
      return new LibSQLFileStore(databaseUrl);
    case 'libsql-server':
      return new LibSQLStore({ id: STORE_ID, url: databaseUrl });
    case 'postgres':
      return new BoundedPostgresStore(databaseUrl);
    default:
      // Only the scheme is named: the rest of the URL may hold a password.
      throw new Error(`Unsupported DATABASE_URL scheme "${schemeOf(databaseUrl) ?? ''}": use ${DATABASE_SCHEMES_TEXT}`);
  }
}

/**
 * A LibSQL file store that folds its write-ahead log into the file once it is closed. The driver's close leaves its
 * connections to be finished later, and a process that exits right after (the service on SIGTERM) left every turn
 * since SQLite's last automatic checkpoint (every 1 000 pages: all of a small database's) in the `-wal` file only; a
 * copy of the database file alone had lost them (README "Backups of the database").
 */
class LibSQLFileStore extends LibSQLStore {
  readonly #url: string;
  /** The database file, or `:memory:`. */
  readonly #path: string;
  /** The file the store opened (device and inode), once its tables are made. */
  #opened?: FileIdentity;

  constructor(url: string) {
    super({ id: STORE_ID, url });
    this.#url = url;
    this.#path = filePathOf(url);
  }

  override async init() {
    await super.init();
    if (this.#path !== ':memory:') this.#opened ??= identityOf(this.#path);
  }

  /**
   * Whether the database file is still the one the store writes. Deleted (or replaced) under a running service, the
   * file's turns go on into the deleted one, which every query still answers, and are lost when the service starts
   * again: a fresh, empty file is made then.
   */
  fileProblem(): string | undefined {
    if (!this.#opened) return undefined;
    const now = identityOf(this.#path);
    if (!now) return 'the database file was deleted while the service runs: turns since go to the deleted file; restore it, or restart the service';
    if (now.dev !== this.#opened.dev || now.ino !== this.#opened.ino) return 'the database file was replaced while the service runs: turns go to the old one; restart the service';
    return undefined;
  }

  override async close() {
    await super.close();
    // In memory there is no log to fold in; a file deleted meanwhile is not to be created again.
    if (this.#path === ':memory:' || !existsSync(this.#path)) return;
    const client = createClient({ url: this.#url });
    try {
      await client.execute('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch (error) {
      this.logger.warn('LibSQLStore: the write-ahead log was not folded into the database file; back up both', { error: (error as Error).message });
    } finally {
      client.close();
    }
  }
}

interface FileIdentity {
  dev: number;
  ino: number;
}

function identityOf(path: string): FileIdentity | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats && { dev: stats.dev, ino: stats.ino };
}

/** What is wrong with the store's database file, if it is a LibSQL file store's (see LibSQLFileStore.fileProblem). */
export function databaseFileProblem(storage: MastraCompositeStore): string | undefined {
  return storage instanceof LibSQLFileStore ? storage.fileProblem() : undefined;
}

/**
 * A `PostgresStore` whose connections and statements are bounded in time. Built from a
 * connection string, the store's own pool takes neither bound (only its size, idle timeout and TLS pass through),
 * so it is given a pool built here; a store leaves a pool it was given open, so this one closes it.
 */
class BoundedPostgresStore extends PostgresStore {
  constructor(connectionString: string) {
    super({ id: STORE_ID, pool: new pg.Pool({ connectionString, max: POSTGRES_POOL_SIZE, connectionTimeoutMillis: POSTGRES_WAIT_MS, query_timeout: STORE_STATEMENT_MS }) });
    // As for the pool the store builds itself: a client dropped while idle is discarded, and must not crash the process.
    this.pool.on('error', (error) => outsideRequests(() => this.logger.warn('PostgresStore: idle pool client error', { error: error.message })));
  }

  override async close() {
    await super.close();
    await this.pool.end();
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
  return databaseKindOf(databaseUrl) === 'postgres';
}

/**
 * LibSQL creates the database file but not its folder (`./data` on a fresh clone). Both are made here for this user
 * alone: the file holds every conversation, and LibSQL would create it readable by all under the usual umask (SQLite
 * gives its `-wal` and `-shm` files the database file's mode). A folder or file the service cannot write would fail
 * its first query with the driver's stack: it is refused at start-up, in one line.
 */
function ensureWritableDatabaseFile(path: string) {
  if (!path || path === ':memory:') return;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    accessSync(dirname(path), constants.W_OK);
    // An empty file is an empty database to SQLite.
    if (existsSync(path)) accessSync(path, constants.R_OK | constants.W_OK);
    else closeSync(openSync(path, 'a', 0o600));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unknown';
    throw new StartupRefusal(`DATABASE_URL/DATA_DIR: the database ${path} cannot be written there (${reason})`);
  }
}

/** The path a `file:` URL names (`file:///abs`, `file:/abs`, `file:./relative`), or `:memory:`. */
function filePathOf(fileUrl: string): string {
  return fileUrl.startsWith('file://') ? fileURLToPath(fileUrl) : fileUrl.slice('file:'.length);
}
