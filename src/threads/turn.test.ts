import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CLIENT_GONE } from '../contract/errors.ts';
import { RunningTurns } from './running-turns.ts';
import { InProcessTurnLock } from './turn-lock.ts';
import { STOPPED_TURN_GRACE_MS, startTurn } from './turn.ts';

const TIMEOUT_MS = 1_000;

describe('startTurn', () => {
  let lock: InProcessTurnLock;
  let running: RunningTurns;
  beforeEach(() => {
    vi.useFakeTimers();
    lock = new InProcessTurnLock({ maxQueued: 5 });
    running = new RunningTurns();
  });
  afterEach(() => vi.useRealTimers());

  const start = (threadId: string | undefined, client = new AbortController(), owner = 'ada') =>
    startTurn(threadId ? { owner, threadId } : undefined, client.signal, { lock, running, timeoutMs: TIMEOUT_MS });

  it('stops a turn that outgrows its time with 504 MODEL_ERROR', async () => {
    const turn = await start('t');
    vi.advanceTimersByTime(TIMEOUT_MS - 1);
    expect(turn.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(turn.stopped()).toMatchObject({ status: 504, code: 'MODEL_ERROR', details: { timeout: 'turn', timeoutMs: TIMEOUT_MS } });
    expect(turn.signal.reason).toBe(turn.stopped());
    turn.end();
  });

  it("stops a turn whose thread's lock is lost (its database connection went): another replica may run the thread now", async () => {
    let loseLock: (error: Error) => void = () => {};
    const losable = { acquire: async (_key: unknown, _signal: AbortSignal, onLost?: (error: Error) => void) => ((loseLock = onLost!), () => {}), close: async () => {} };
    const turn = await startTurn({ owner: 'ada', threadId: 't' }, new AbortController().signal, { lock: losable, running, timeoutMs: TIMEOUT_MS });
    loseLock(new Error('Connection terminated unexpectedly'));
    expect(turn.stopped()).toMatchObject({ status: 500, code: 'MEMORY_NOT_INITIALIZED' });
    turn.end();
  });

  it('opens its thread within its time, and keeps the thread while an opening it cut short still runs', async () => {
    const turn = await start('t');
    let settle: () => void = () => {};
    const opening = turn.open(new Promise<void>((resolve) => (settle = resolve)));
    const outcome = opening.catch((error: unknown) => error);
    vi.advanceTimersByTime(TIMEOUT_MS);
    expect(await outcome).toMatchObject({ status: 504, details: { timeout: 'turn' } });
    const next = start('t');
    let nextStarted = false;
    void next.then(() => (nextStarted = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(nextStarted).toBe(false);
    settle();
    (await next).end();
  });

  it('stops a turn whose client hangs up', async () => {
    const client = new AbortController();
    const turn = await start('t', client);
    client.abort();
    expect(turn.stopped()).toBe(CLIENT_GONE);
    turn.end();
  });

  it('counts the queue wait: a turn still queued when its time is up is rejected with 504 and leaves the queue', async () => {
    const running = await start('t');
    vi.advanceTimersByTime(TIMEOUT_MS / 2);
    const queued = start('t');
    const outcome = queued.catch((error: unknown) => error);
    vi.advanceTimersByTime(TIMEOUT_MS);
    expect(await outcome).toMatchObject({ status: 504, details: { timeout: 'turn' } });
    running.end();
    // The queued turn is gone, so the thread is free at once.
    const next = await start('t');
    next.end();
  });

  it('rejects a turn whose client left while it was queued, and holds nothing for it', async () => {
    const running = await start('t');
    const client = new AbortController();
    const queued = start('t', client).catch((error: unknown) => error);
    client.abort();
    expect(await queued).toBe(CLIENT_GONE);
    running.end();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('releases the thread and stops the clock on end(), once', async () => {
    const first = await start('t');
    const second = start('t');
    first.end();
    first.end();
    const running = await second;
    expect(vi.getTimerCount()).toBe(1);
    running.end();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(TIMEOUT_MS * 2);
    expect(running.signal.aborted).toBe(false);
  });

  it('takes no lock for a turn without a thread', async () => {
    const acquire = vi.spyOn(lock, 'acquire');
    const [a, b] = await Promise.all([start(undefined), start(undefined)]);
    expect(acquire).not.toHaveBeenCalled();
    a.end();
    b.end();
  });

  it("runs one owner's turns on a thread in order, and another owner's on the same id alongside", async () => {
    const owners = await start('t');
    const strangers = await start('t', new AbortController(), 'mallory');
    let ownersNextRan = false;
    const ownersNext = start('t').then((turn) => ((ownersNextRan = true), turn));
    await vi.advanceTimersByTimeAsync(0);
    expect(ownersNextRan).toBe(false);
    owners.end();
    (await ownersNext).end();
    strangers.end();
  });

  it('holds a claimed new thread id against every other owner until the turn ends', async () => {
    const first = await start('new');
    await first.claimNewThread();
    const other = await start('new', new AbortController(), 'mallory');
    let claimed = false;
    const claim = other.claimNewThread().then(() => (claimed = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(claimed).toBe(false);
    first.end();
    await claim;
    other.end();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('lets a stopped turn\'s thread go after the grace period, even if its writer never ends it', async () => {
    const options = { lock, running, timeoutMs: STOPPED_TURN_GRACE_MS * 2 };
    const client = new AbortController();
    const stopped = await startTurn({ owner: 'ada', threadId: 't' }, client.signal, options);
    client.abort();
    let nextRan = false;
    const next = startTurn({ owner: 'ada', threadId: 't' }, new AbortController().signal, options).then((turn) => ((nextRan = true), turn));
    await vi.advanceTimersByTimeAsync(STOPPED_TURN_GRACE_MS - 1);
    expect(nextRan).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(nextRan).toBe(true);
    (await next).end();
    stopped.end();
  });

  it('counts a turn as running from its start to its end, for a shutdown to wait for', async () => {
    const turn = await start('t');
    let shutdownWent = false;
    const shutdown = running.allEnded(60_000).then(() => (shutdownWent = true));
    await vi.advanceTimersByTimeAsync(100);
    expect(shutdownWent).toBe(false);
    turn.end();
    await shutdown;
    expect(shutdownWent).toBe(true);
  });
});
