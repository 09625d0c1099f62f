/**
 * @module Per-thread turn order across replicas that share one PostgreSQL store.
 * Within a process, turns queue in the in-process lock (arrival order, bounded
 * queue, dropped when their client leaves). The turn at the head of a thread's
 * queue then takes a session advisory lock on the same key (owner and thread, see turn-lock.ts),
 * `pg_try_advisory_lock(hashtext('companion-agent:turn'), hashtext('owner/threadId'))`,
 * on this replica's one dedicated connection, retrying every `pollMs` while
 * another replica holds it. A session lock dies with its session: a replica
 * that crashes or loses its connection frees its threads at once. A replica that
 * loses its connection (a database restart, a failover) stops its running turns,
 * whose threads another replica may now take: two turns never run on one thread.
 *
 * One connection serves all of a replica's locks (a session may hold many), so
 * the number of running turns never depends on a pool's size. Two keys that
 * share a hash only ever wait on each other across replicas.
 *
 * A turn that waits on another replica says so in the database (a shared
 * advisory lock on the key in a second namespace), and a replica's turn that
 * has not waited yet lets such a turn go first: else the replica that ran a
 * thread's last turn, whose next turn asks at once, took the thread again and
 * again while the other's turn, asking every `pollMs`, waited for its whole queue.
 */
import pg from 'pg';
import { memoryNotInitialized } from '../contract/errors.ts';
import { POSTGRES_TIMEOUTS } from '../mastra/storage.ts';
import { lockName, type Release, type TurnKey, type TurnLock } from './turn-lock.ts';

const NAMESPACE = 'companion-agent:turn';
/** Where turns waiting for a thread held on another replica say so. */
const WAITING_NAMESPACE = 'companion-agent:turn-waiting';
const DEFAULT_POLL_MS = 100;

const TRY_LOCK = 'SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked';
const UNLOCK = 'SELECT pg_advisory_unlock(hashtext($1), hashtext($2))';
const MARK_WAITING = 'SELECT pg_try_advisory_lock_shared(hashtext($1), hashtext($2))';
const UNMARK_WAITING = 'SELECT pg_advisory_unlock_shared(hashtext($1), hashtext($2))';
/** The lock, unless a turn of another session waits for it (a two-key advisory lock shows its keys as oids). */
const TRY_LOCK_AFTER_WAITERS = `SELECT CASE WHEN EXISTS (
    SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = hashtext($3)::oid AND objid = hashtext($2)::oid
      AND objsubid = 2 AND pid <> pg_backend_pid()
  ) THEN false ELSE pg_try_advisory_lock(hashtext($1), hashtext($2)) END AS locked`;

export interface PostgresTurnLockOptions {
  /** How often a turn waiting on another replica asks again. */
  pollMs?: number;
  /** Told when the lock connection fails (its locks are gone with it); the next turn reconnects. */
  onConnectionError?: (error: Error) => void;
}

export class PostgresTurnLock implements TurnLock {
  readonly #connectionString: string;
  readonly #local: TurnLock;
  readonly #pollMs: number;
  readonly #onConnectionError: (error: Error) => void;
  #closed = false;
  #connection: Promise<pg.Client> | undefined;
  /** The lock connection's statements, one after another: pg deprecates a query sent while another runs. */
  #statements: Promise<unknown> = Promise.resolve();
  /** Told when the connection their locks live on is lost. */
  readonly #holders = new Set<(error: Error) => void>();

  constructor(connectionString: string, local: TurnLock, options: PostgresTurnLockOptions = {}) {
    this.#connectionString = connectionString;
    this.#local = local;
    this.#pollMs = options.pollMs ?? DEFAULT_POLL_MS;
    this.#onConnectionError = options.onConnectionError ?? (() => {});
  }

  async acquire(key: TurnKey, signal: AbortSignal, onLost: (error: Error) => void = () => {}): Promise<Release> {
    const releaseLocal = await this.#local.acquire(key, signal);
    const name = lockName(key);
    try {
      await this.#lockAcrossReplicas(name, signal);
    } catch (error) {
      releaseLocal();
      throw error;
    }
    // One entry per lock held: a turn holding two (its thread, and a new thread's claim) may pass the same callback.
    const holder = (error: Error) => onLost(error);
    this.#holders.add(holder);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#holders.delete(holder);
      // Queries on one connection run in order, so a local successor's lock query follows this unlock.
      this.#query(UNLOCK, [NAMESPACE, name]).catch(() => {});
      releaseLocal();
    };
  }

  async close() {
    // Its connection ends now because it is asked to, not because it was lost.
    this.#closed = true;
    const connection = this.#connection;
    this.#connection = undefined;
    await connection?.then((client) => client.end()).catch(() => {});
    await this.#local.close();
  }

  async #lockAcrossReplicas(name: string, signal: AbortSignal) {
    let waiting = false;
    try {
      for (;;) {
        signal.throwIfAborted();
        const attempt = waiting ? this.#query(TRY_LOCK, [NAMESPACE, name]) : this.#query(TRY_LOCK_AFTER_WAITERS, [NAMESPACE, name, WAITING_NAMESPACE]);
        const { rows } = await attempt.catch((error: unknown) => {
          // A turn stopped while it waited (its time ran out, its client left) says so.
          signal.throwIfAborted();
          // The store a stored turn needs is unreachable: the same answer as for its messages.
          throw memoryNotInitialized(error);
        });
        if (rows[0]?.locked) {
          if (!signal.aborted) return;
          // Locked just as the turn was given up: let the thread go again.
          await this.#query(UNLOCK, [NAMESPACE, name]).catch(() => {});
          signal.throwIfAborted();
        }
        if (!waiting) {
          await this.#query(MARK_WAITING, [WAITING_NAMESPACE, name]).catch(() => {});
          waiting = true;
        }
        await pause(this.#pollMs, signal);
      }
    } finally {
      if (waiting) this.#query(UNMARK_WAITING, [WAITING_NAMESPACE, name]).catch(() => {});
    }
  }

  /**
   * A statement the database did not answer in time may still take effect (a lock taken after its turn gave up):
   * the connection is ended, and every lock on it with it.
   */
  #query(text: string, values: unknown[]) {
    const run = this.#statements.then(async () => {
      const client = await this.#connect();
      return client.query<{ locked?: boolean }>(text, values).catch((error: unknown) => {
        client.end().catch(() => {});
        throw error;
      });
    });
    this.#statements = run.catch(() => {});
    return run;
  }

  #connect(): Promise<pg.Client> {
    if (!this.#connection) {
      const client = new pg.Client({ connectionString: this.#connectionString, application_name: NAMESPACE, ...POSTGRES_TIMEOUTS });
      const connection = client.connect().then(() => client);
      let forgotten = false;
      const forget = (error: Error) => {
        if (forgotten) return;
        forgotten = true;
        if (this.#connection === connection) this.#connection = undefined;
        client.end().catch(() => {});
        if (!this.#closed) this.#onConnectionError(error);
        const holders = [...this.#holders];
        this.#holders.clear();
        for (const lost of holders) lost(error);
      };
      client.on('error', forget);
      client.on('end', () => forget(new Error('the turn lock connection was closed')));
      connection.catch(forget);
      this.#connection = connection;
    }
    return this.#connection;
  }
}

function pause(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
