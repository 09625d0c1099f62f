import { describe, expect, it } from 'vitest';
import { ApiError } from '../contract/errors.ts';
import { InProcessTurnLock } from './turn-lock.ts';

const open = () => new AbortController().signal;

describe('InProcessTurnLock', () => {
  it('runs turns on one thread in arrival order, and other threads alongside', async () => {
    const lock = new InProcessTurnLock({ maxQueued: 10 });
    const log: string[] = [];
    const turn = async (thread: string, name: string, work: Promise<void>) => {
      const release = await lock.acquire({ threadId: thread }, open());
      log.push(`${name} start`);
      await work;
      log.push(`${name} end`);
      release();
    };
    let finishFirst!: () => void;
    const first = turn('a', 'a1', new Promise((resolve) => (finishFirst = resolve)));
    const second = turn('a', 'a2', Promise.resolve());
    const third = turn('a', 'a3', Promise.resolve());
    await turn('b', 'b1', Promise.resolve());
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end']);
    finishFirst();
    await Promise.all([first, second, third]);
    expect(log).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end', 'a3 start', 'a3 end']);
  });

  it('refuses a turn beyond maxQueued with 429 RATE_LIMITED, and takes one again once the queue moves', async () => {
    const lock = new InProcessTurnLock({ maxQueued: 1 });
    const release = await lock.acquire({ threadId: 't' }, open());
    const queued = lock.acquire({ threadId: 't' }, open());
    const refused = await lock.acquire({ threadId: 't' }, open()).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED', details: { threadId: 't', maxQueuedTurns: 1 } });

    release();
    const next = await queued;
    const queuedAgain = lock.acquire({ threadId: 't' }, open());
    next();
    (await queuedAgain)();
  });

  it('with maxQueued 0, runs one turn per thread and refuses the rest', async () => {
    const lock = new InProcessTurnLock({ maxQueued: 0 });
    const release = await lock.acquire({ threadId: 't' }, open());
    await expect(lock.acquire({ threadId: 't' }, open())).rejects.toMatchObject({ status: 429 });
    release();
    (await lock.acquire({ threadId: 't' }, open()))();
  });

  it('drops a waiting turn whose signal aborts, with the signal’s reason, and hands the thread to the next', async () => {
    const lock = new InProcessTurnLock({ maxQueued: 2 });
    const release = await lock.acquire({ threadId: 't' }, open());
    const gone = new AbortController();
    const dropped = lock.acquire({ threadId: 't' }, gone.signal);
    const next = lock.acquire({ threadId: 't' }, open());
    const reason = new ApiError(499, 'INVALID_REQUEST', 'gone');
    gone.abort(reason);
    await expect(dropped).rejects.toBe(reason);

    let nextRan = false;
    void next.then(() => (nextRan = true));
    await Promise.resolve();
    expect(nextRan).toBe(false);
    release();
    (await next)();
    expect(nextRan).toBe(true);
  });

  it('refuses a turn whose signal has already aborted, and frees a queue slot for it', async () => {
    const lock = new InProcessTurnLock({ maxQueued: 1 });
    const release = await lock.acquire({ threadId: 't' }, open());
    const gone = new AbortController();
    gone.abort('left');
    await expect(lock.acquire({ threadId: 't' }, gone.signal)).rejects.toBe('left');
    const queued = lock.acquire({ threadId: 't' }, open());
    release();
    (await queued)();
  });

  it('ignores a second call of the same release', async () => {
    const lock = new InProcessTurnLock({ maxQueued: 1 });
    const release = await lock.acquire({ threadId: 't' }, open());
    const queued = lock.acquire({ threadId: 't' }, open());
    release();
    release();
    const second = await queued;
    // Had the repeated release let another turn in, this one would be admitted while `second` runs.
    let thirdRan = false;
    const third = lock.acquire({ threadId: 't' }, open()).then((r) => ((thirdRan = true), r));
    await Promise.resolve();
    expect(thirdRan).toBe(false);
    second();
    (await third)();
  });

  it("keeps each owner's turns on a thread id in a queue of their own, so a stranger's turns never fill the owner's", async () => {
    const lock = new InProcessTurnLock({ maxQueued: 1 });
    const owner = { owner: 'alice', threadId: 'diary' };
    const stranger = { owner: 'mallory', threadId: 'diary' };
    const ownersTurn = await lock.acquire(owner, open());
    const strangersTurn = await lock.acquire(stranger, open());
    const strangerQueued = lock.acquire(stranger, open());
    const refused = await lock.acquire(stranger, open()).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      status: 429,
      message: 'Thread diary already has 1 turn(s) waiting; send the next message after a reply.',
      details: { threadId: 'diary', maxQueuedTurns: 1 },
    });
    // The owner's queue is still empty: their next turn queues, it is not refused.
    const ownerQueued = lock.acquire(owner, open());
    ownersTurn();
    (await ownerQueued)();
    strangersTurn();
    (await strangerQueued)();
  });

  it('keeps a thread id across owners apart from every owner\'s queue', async () => {
    const lock = new InProcessTurnLock({ maxQueued: 0 });
    const ownersTurn = await lock.acquire({ owner: 'alice', threadId: 'diary' }, open());
    const claim = await lock.acquire({ threadId: 'diary' }, open());
    await expect(lock.acquire({ threadId: 'diary' }, open())).rejects.toMatchObject({ status: 429 });
    claim();
    ownersTurn();
  });
});
