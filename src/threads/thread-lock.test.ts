import { expect, it } from 'vitest';
import { lockThread } from './thread-lock.ts';

it('runs turns on one thread in arrival order, and other threads alongside', async () => {
  const log: string[] = [];
  const turn = async (thread: string, name: string, work: Promise<void>) => {
    const release = await lockThread(thread);
    log.push(`${name} start`);
    await work;
    log.push(`${name} end`);
    release();
  };
  let finishFirst!: () => void;
  const first = turn('a', 'a1', new Promise((resolve) => (finishFirst = resolve)));
  const second = turn('a', 'a2', Promise.resolve());
  const other = turn('b', 'b1', Promise.resolve());
  await other;
  expect(log).toEqual(['a1 start', 'b1 start', 'b1 end']);
  finishFirst();
  await Promise.all([first, second]);
  expect(log).toEqual(['a1 start', 'b1 start', 'b1 end', 'a1 end', 'a2 start', 'a2 end']);
});

it('lets no turn in early when a release is called twice', async () => {
  const log: string[] = [];
  const releaseA = await lockThread('c');
  const waitingB = lockThread('c').then((release) => (log.push('b start'), release));
  releaseA();
  const releaseB = await waitingB;
  releaseA();
  const waitingC = lockThread('c').then((release) => (log.push('c start'), release));
  // Let every settled promise run: C must still be waiting for B.
  await new Promise((resolve) => setImmediate(resolve));
  expect(log).toEqual(['b start']);
  releaseB();
  (await waitingC)();
  expect(log).toEqual(['b start', 'c start']);
});
