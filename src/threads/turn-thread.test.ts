import type { StorageThreadType } from '@mastra/core/memory';
import { describe, expect, it, vi } from 'vitest';
import { runOnTurnThread, serveTurnThread } from './turn-thread.ts';

const opened: StorageThreadType = {
  id: 'diary',
  resourceId: 'ada',
  title: 'Diary',
  metadata: { personality: 'guru' },
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-02T00:00:00Z'),
};

function storeWithQueries() {
  const query = vi.fn(async ({ threadId }: { threadId: string; resourceId?: string }): Promise<StorageThreadType | null> => ({ ...opened, id: threadId, title: 'from the store' }));
  const store = { getThreadById: query };
  serveTurnThread(store);
  return { store, query };
}

describe('serveTurnThread', () => {
  it('answers the turn’s reads of its own thread without a query, across awaits and timers', async () => {
    const { store, query } = storeWithQueries();
    const reads = await runOnTurnThread(opened, async () => {
      const first = await store.getThreadById({ threadId: 'diary' });
      await new Promise((resolve) => setTimeout(resolve, 1));
      const second = await store.getThreadById({ threadId: 'diary', resourceId: 'ada' });
      return [first, second];
    });
    expect(reads).toEqual([opened, opened]);
    expect(query).not.toHaveBeenCalled();
  });

  it('queries the store for another thread, for another owner’s read, and outside any turn', async () => {
    const { store, query } = storeWithQueries();
    await runOnTurnThread(opened, async () => {
      expect((await store.getThreadById({ threadId: 'other' }))?.title).toBe('from the store');
      expect((await store.getThreadById({ threadId: 'diary', resourceId: 'mallory' }))?.title).toBe('from the store');
    });
    expect((await store.getThreadById({ threadId: 'diary' }))?.title).toBe('from the store');
    expect(await runOnTurnThread(undefined, () => store.getThreadById({ threadId: 'diary' }))).toMatchObject({ title: 'from the store' });
    expect(query).toHaveBeenCalledTimes(4);
  });

  it('gives each read a copy: a caller that changes it leaves the turn’s thread as opened', async () => {
    const { store } = storeWithQueries();
    const second = await runOnTurnThread(opened, async () => {
      const first = (await store.getThreadById({ threadId: 'diary' }))!;
      first.title = 'changed';
      first.metadata!.personality = 'friend';
      return store.getThreadById({ threadId: 'diary' });
    });
    expect(second).toEqual(opened);
    expect(opened.metadata).toEqual({ personality: 'guru' });
  });
});
