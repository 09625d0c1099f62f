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

it('ignores a second call of the same release', async () => {
  const release = await lockThread('c');
  release();
  release();
  const next = await lockThread('c');
  next();
});
