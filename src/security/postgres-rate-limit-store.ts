/**
 * @module A `hono-rate-limiter` store in PostgreSQL, so several replicas on one
 * database share each client's count. One atomic upsert per request: a window
 * that has ended restarts at 1, otherwise the count goes up by one.
 */
import pg from 'pg';
import type { Store } from 'hono-rate-limiter';

const TABLE = 'companion_rate_limits';

export class PostgresRateLimitStore implements Store {
  private readonly pool: pg.Pool;
  private windowMs = 60_000;
  private ready: Promise<unknown> | undefined;

  constructor(connectionString: string, onError: (error: Error) => void = () => {}) {
    // Two connections suffice: each statement is one short upsert.
    this.pool = new pg.Pool({ connectionString, max: 2 });
    // An idle connection dropped by the server (restart, failover) must not crash the process; the next query reconnects.
    this.pool.on('error', onError);
  }

  init(options: { windowMs: number }) {
    this.windowMs = options.windowMs;
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

  async increment(key: string) {
    await this.table();
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
  }

  async decrement(key: string) {
    await this.table();
    await this.pool.query(`UPDATE ${TABLE} SET hits = greatest(hits - 1, 0) WHERE key = $1`, [key]);
  }

  async resetKey(key: string) {
    await this.table();
    await this.pool.query(`DELETE FROM ${TABLE} WHERE key = $1`, [key]);
  }

  close() {
    return this.pool.end();
  }
}
