import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type RunningPostgres } from '../../tests/fixtures/postgres.ts';
import { PostgresTurnLock } from './postgres-turn-lock.ts';
import { InProcessTurnLock, type TurnLock } from './turn-lock.ts';

const open = () => new AbortController().signal;
/** Long enough for a waiting replica to ask many times (it asks every 20 ms here). */
const manyPolls = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('PostgresTurnLock (two replicas on one real PostgreSQL)', () => {
  let postgres: RunningPostgres;
  const locks: TurnLock[] = [];
  const connectionErrors: Error[] = [];
  const replica = () => {
    const lock = new PostgresTurnLock(postgres.url, new InProcessTurnLock({ maxQueued: 5 }), {
      pollMs: 20,
      onConnectionError: (error) => connectionErrors.push(error),
    });
    locks.push(lock);
    return lock;
  };

  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterEach(async () => {
    await Promise.all(locks.splice(0).map((lock) => lock.close()));
    connectionErrors.length = 0;
  });
  afterAll(() => postgres.stop());

  it("sends its connection's statements one after another (pg deprecates a query sent while another runs)", async () => {
    // pg warns once per process, so the warning alone may already be spent: the statements in flight are counted too.
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(warning.message);
    const query = pg.Client.prototype.query;
    const inFlight = new Map<object, number>();
    let mostInFlight = 0;
    pg.Client.prototype.query = function (this: object, ...args: unknown[]) {
      inFlight.set(this, (inFlight.get(this) ?? 0) + 1);
      mostInFlight = Math.max(mostInFlight, inFlight.get(this)!);
      const done = () => inFlight.set(this, inFlight.get(this)! - 1);
      const result = (query as (...a: unknown[]) => unknown).apply(this, args) as Promise<unknown>;
      result.then(done, done);
      return result;
    } as typeof query;
    process.on('warning', onWarning);
    try {
      const lock = replica();
      const releases = await Promise.all(Array.from({ length: 8 }, (_, i) => lock.acquire({ threadId: `concurrent-${i}` }, open())));
      for (const release of releases) release();
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('warning', onWarning);
      pg.Client.prototype.query = query;
    }
    expect(mostInFlight).toBe(1);
    expect(warnings.filter((message) => message.includes('client.query()'))).toEqual([]);
  });

  it('runs a thread’s turns one replica at a time, and other threads alongside', async () => {
    const a = replica();
    const b = replica();
    const releaseA = await a.acquire({ threadId: 'thread-1' }, open());
    let bRunning = false;
    const bTurn = b.acquire({ threadId: 'thread-1' }, open()).then((release) => ((bRunning = true), release));
    (await b.acquire({ threadId: 'thread-2' }, open()))();
    await manyPolls();
    expect(bRunning).toBe(false);

    releaseA();
    const releaseB = await bTurn;
    expect(bRunning).toBe(true);
    let aRunning = false;
    const aAgain = a.acquire({ threadId: 'thread-1' }, open()).then((release) => ((aRunning = true), release));
    await manyPolls();
    expect(aRunning).toBe(false);
    releaseB();
    (await aAgain)();
  });

  // The replica that held the thread asked again at once for its own next turn, and took it every time.
  it("lets a turn that waited on another replica go before this replica's next turn on the thread", async () => {
    const a = replica();
    const b = replica();
    const order: string[] = [];
    const releaseFirst = await a.acquire({ threadId: 'thread-1' }, open());
    const bTurn = b.acquire({ threadId: 'thread-1' }, open()).then((release) => (order.push('b'), release));
    await manyPolls();
    const aNext = a.acquire({ threadId: 'thread-1' }, open()).then((release) => (order.push('a'), release));
    releaseFirst();
    await manyPolls();
    expect(order).toEqual(['b']);
    (await bTurn)();
    (await aNext)();
    expect(order).toEqual(['b', 'a']);
  });

  it('drops a waiting turn whose signal aborts, with its reason, and holds nothing for it', async () => {
    const a = replica();
    const b = replica();
    const releaseA = await a.acquire({ threadId: 'thread-1' }, open());
    const gone = new AbortController();
    const waiting = b.acquire({ threadId: 'thread-1' }, gone.signal);
    await manyPolls();
    gone.abort('client left');
    await expect(waiting).rejects.toBe('client left');

    releaseA();
    const c = replica();
    (await c.acquire({ threadId: 'thread-1' }, open()))();
  });

  it('frees the threads of a replica whose connection dies (a crash, a restart), and tells their turns so they stop', async () => {
    const a = replica();
    const lost: Error[] = [];
    await a.acquire({ threadId: 'thread-1' }, open(), (error) => lost.push(error));
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    try {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'companion-agent:turn' AND datname = current_database() AND pid <> pg_backend_pid()",
      );
    } finally {
      await admin.end();
    }
    const b = replica();
    (await b.acquire({ threadId: 'thread-1' }, open()))();
    expect(connectionErrors.length).toBeGreaterThan(0);
    expect(lost).toHaveLength(1);
  });

  // A graceful stop of every replica that had served a turn logged "turn lock connection lost".
  it('reports no lost connection when it is closed', async () => {
    const a = replica();
    (await a.acquire({ threadId: 'thread-1' }, open()))();
    await a.close();
    expect(connectionErrors).toEqual([]);
  });

  it('answers MEMORY_NOT_INITIALIZED when the store is unreachable, and holds nothing for the turn', async () => {
    const lock = new PostgresTurnLock('postgres://postgres@127.0.0.1:9/none', new InProcessTurnLock({ maxQueued: 0 }));
    locks.push(lock);
    for (let attempt = 0; attempt < 2; attempt++) {
      await expect(lock.acquire({ threadId: 'thread-1' }, open())).rejects.toMatchObject({ status: 500, code: 'MEMORY_NOT_INITIALIZED' });
    }
  });

  it("never lets a stranger's turns on a thread id, on any replica, hold up or fill the owner's", async () => {
    const a = replica();
    const b = replica();
    const strangers = [await a.acquire({ owner: 'mallory', threadId: 'diary' }, open()), await b.acquire({ owner: 'eve', threadId: 'diary' }, open())];
    // The stranger's queue on replica a is full (maxQueued 5); the owner's turns still run at once, on either replica.
    const queued = Array.from({ length: 5 }, () => a.acquire({ owner: 'mallory', threadId: 'diary' }, open()));
    await expect(a.acquire({ owner: 'mallory', threadId: 'diary' }, open())).rejects.toMatchObject({ status: 429 });
    (await a.acquire({ owner: 'alice', threadId: 'diary' }, open()))();
    (await b.acquire({ owner: 'alice', threadId: 'diary' }, open()))();
    for (const release of strangers) release();
    for (const turn of queued) (await turn)();
  });

  it('keeps the in-process queue bound', async () => {
    const lock = new PostgresTurnLock(postgres.url, new InProcessTurnLock({ maxQueued: 0 }));
    locks.push(lock);
    const release = await lock.acquire({ threadId: 'thread-1' }, open());
    await expect(lock.acquire({ threadId: 'thread-1' }, open())).rejects.toMatchObject({ status: 429, code: 'RATE_LIMITED' });
    release();
  });
});
