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
 */
import pg from 'pg';
import { memoryNotInitialized } from '../contract/errors.ts';
import { POSTGRES_TIMEOUTS } from '../mastra/storage.ts';
import { lockName, type Release, type TurnKey, type TurnLock } from './turn-lock.ts';

const NAMESPACE = 'companion-agent:turn';
const DEFAULT_POLL_MS = 100;

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
  #connection: Promise<pg.Client> | undefined;
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
      this.#query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', [NAMESPACE, name]).catch(() => {});
      releaseLocal();
    };
  }

  async close() {
    const connection = this.#connection;
    this.#connection = undefined;
    await connection?.then((client) => client.end()).catch(() => {});
    await this.#local.close();
  }

  async #lockAcrossReplicas(name: string, signal: AbortSignal) {
    for (;;) {
      signal.throwIfAborted();
      const { rows } = await this.#query('SELECT pg_try_advisory_lock(hashtext($1), hashtext($2)) AS locked', [NAMESPACE, name]).catch(
        (error: unknown) => {
          // A turn stopped while it waited (its time ran out, its client left) says so.
          signal.throwIfAborted();
          // The store a stored turn needs is unreachable: the same answer as for its messages.
          throw memoryNotInitialized(error);
        },
      );
      if (rows[0]?.locked) {
        if (!signal.aborted) return;
        // Locked just as the turn was given up: let the thread go again.
        await this.#query('SELECT pg_advisory_unlock(hashtext($1), hashtext($2))', [NAMESPACE, name]).catch(() => {});
        signal.throwIfAborted();
      }
      await pause(this.#pollMs, signal);
    }
  }

  /**
   * A statement the database did not answer in time may still take effect (a lock taken after its turn gave up):
   * the connection is ended, and every lock on it with it.
   */
  async #query(text: string, values: unknown[]) {
    const client = await this.#connect();
    return client.query<{ locked?: boolean }>(text, values).catch((error: unknown) => {
      client.end().catch(() => {});
      throw error;
    });
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
        this.#onConnectionError(error);
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
