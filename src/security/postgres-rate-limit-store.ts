/**
 * @module A `hono-rate-limiter` store in PostgreSQL, so several replicas on one
 * database share each client's count. One atomic upsert per request: a window
 * that has ended restarts at 1, otherwise the count goes up by one.
 *
 * While the database does not answer, each replica counts in process instead
 * (the library's `MemoryStore`), and tries the database again every few seconds:
 * an outage must not fail the requests that need no database (stateless turns,
 * `/stt`), and the limit still holds, per replica.
 */
import pg from 'pg';
import { MemoryStore, type Store } from 'hono-rate-limiter';
import { POSTGRES_TIMEOUTS } from '../mastra/storage.ts';

const TABLE = 'companion_rate_limits';

/** While the database is out, how long until the next try (a request waits `POSTGRES_WAIT_MS` for it before it is counted in process). */
const RETRY_AFTER_MS = 5_000;

export class PostgresRateLimitStore implements Store {
  private readonly pool: pg.Pool;
  private readonly fallback = new MemoryStore();
  private windowMs = 60_000;
  private ready: Promise<unknown> | undefined;
  /** While the database is out: when to try it again. */
  private retryAt: number | undefined;
  private readonly onUnavailable: (error: Error) => void;

  constructor(connectionString: string, onUnavailable: (error: Error) => void = () => {}) {
    this.onUnavailable = onUnavailable;
    // Two connections suffice: each statement is one short upsert.
    this.pool = new pg.Pool({ connectionString, max: 2, ...POSTGRES_TIMEOUTS });
    // An idle connection dropped by the server (restart, failover) must not crash the process: the next query
    // reconnects, or finds the database out and reports it then.
    this.pool.on('error', () => {});
  }

  init(options: Parameters<MemoryStore['init']>[0]) {
    this.windowMs = options.windowMs;
    this.fallback.init(options);
  }

  private table() {
    // A failed attempt is not kept: the next request tries again once the database is back.
    this.ready ??= this.pool
      .query(`CREATE TABLE IF NOT EXISTS ${TABLE} (key text PRIMARY KEY, hits integer NOT NULL, reset_at timestamptz NOT NULL)`)
      .catch((error: unknown) => {
        this.ready = undefined;
        throw error;
      });
    return this.ready;
  }

  /** `shared` against the database, or `local` while it is out (the first failure is reported, once per outage). */
  private async counted<T>(shared: () => Promise<T>, local: () => T | Promise<T>): Promise<T> {
    if (this.retryAt !== undefined && Date.now() < this.retryAt) return local();
    try {
      await this.table();
      const result = await shared();
      this.retryAt = undefined;
      return result;
    } catch (error) {
      if (this.retryAt === undefined) this.onUnavailable(error as Error);
      this.retryAt = Date.now() + RETRY_AFTER_MS;
      return local();
    }
  }

  increment(key: string) {
    return this.counted(async () => {
      const { rows } = await this.pool.query<{ hits: number; reset_at: Date }>(
        `INSERT INTO ${TABLE} AS r (key, hits, reset_at) VALUES ($1, 1, now() + $2 * interval '1 millisecond')
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN r.reset_at <= now() THEN 1 ELSE r.hits + 1 END,
           reset_at = CASE WHEN r.reset_at <= now() THEN EXCLUDED.reset_at ELSE r.reset_at END
         RETURNING hits, reset_at`,
        [key, this.windowMs],
      );
      const row = rows[0]!;
      return { totalHits: row.hits, resetTime: row.reset_at };
    }, () => this.fallback.increment(key));
  }

  decrement(key: string) {
    return this.counted(
      async () => void (await this.pool.query(`UPDATE ${TABLE} SET hits = greatest(hits - 1, 0) WHERE key = $1`, [key])),
      () => this.fallback.decrement(key),
    );
  }

  resetKey(key: string) {
    return this.counted(
      async () => void (await this.pool.query(`DELETE FROM ${TABLE} WHERE key = $1`, [key])),
      () => this.fallback.resetKey(key),
    );
  }

  close() {
    this.fallback.shutdown();
    return this.pool.end();
  }
}
