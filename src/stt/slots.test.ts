import { describe, expect, it } from 'vitest';
import { Slots } from './slots.ts';

/** A task that runs until it is told to finish, and says when it started. */
function task() {
  let finish!: () => void;
  let started = false;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    run: () => ((started = true), done),
    finish,
    get started() {
      return started;
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('Slots', () => {
  it('runs at most its size at once, the others in arrival order as slots free up', async () => {
    const slots = new Slots(2);
    const tasks = [task(), task(), task(), task()];
    const runs = tasks.map((t) => slots.run(t.run));
    await flush();
    expect(tasks.map((t) => t.started)).toEqual([true, true, false, false]);

    tasks[1]!.finish();
    await flush();
    expect(tasks.map((t) => t.started)).toEqual([true, true, true, false]);

    for (const t of tasks) t.finish();
    await Promise.all(runs);
    expect(tasks.every((t) => t.started)).toBe(true);
  });

  it('drops a waiting task whose signal aborts, at once and without running it; its place goes to the next', async () => {
    const slots = new Slots(1);
    const [running, abandoned, next] = [task(), task(), task()];
    const client = new AbortController();
    const first = slots.run(running.run);
    const dropped = slots.run(abandoned.run, client.signal);
    const third = slots.run(next.run);

    client.abort(new Error('client gone'));
    await expect(dropped).rejects.toThrow('client gone');
    running.finish();
    await first;
    await flush();

    expect(abandoned.started).toBe(false);
    expect(next.started).toBe(true);
    next.finish();
    await third;
  });

  it('never runs a task whose signal has already aborted', async () => {
    const slots = new Slots(1);
    const late = task();
    await expect(slots.run(late.run, AbortSignal.abort(new Error('deadline passed')))).rejects.toThrow('deadline passed');
    expect(late.started).toBe(false);
  });
});
