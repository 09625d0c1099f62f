import type { MastraDBMessage, StorageThreadType } from '@mastra/core/memory';
import { describe, expect, it, vi } from 'vitest';
import { createTurnScope, markRunStored, markRunStoring, runInTurnScope, serveTurnScope } from './turn-thread.ts';

const opened: StorageThreadType = {
  id: 'diary',
  resourceId: 'ada',
  title: 'Diary',
  metadata: { personality: 'guru' },
  createdAt: new Date('2026-01-01T00:00:00Z'),
  updatedAt: new Date('2026-01-02T00:00:00Z'),
};

/** A store holding `diary` as stored (titled "as stored"), with its queries counted. */
function storeWithQueries() {
  const stored = new Map<string, StorageThreadType>([['diary', { ...opened, title: 'as stored' }]]);
  const store = {
    getThreadById: vi.fn(async ({ threadId }: { threadId: string; resourceId?: string }) => stored.get(threadId) ?? null),
    saveThread: async ({ thread }: { thread: StorageThreadType }) => (stored.set(thread.id, thread), thread),
    updateThread: async ({ id, title, metadata }: { id: string; title: string; metadata: Record<string, unknown> }) => {
      const thread = { ...stored.get(id)!, title, metadata };
      stored.set(id, thread);
      return thread;
    },
    deleteThread: async ({ threadId }: { threadId: string }) => void stored.delete(threadId),
    saveMessages: async ({ messages }: { messages: MastraDBMessage[] }) => {
      if (messages.some((message) => message.id === 'too-much')) throw new Error('SQLITE_FULL');
      return { messages };
    },
  };
  const query = store.getThreadById;
  serveTurnScope(store);
  return { store, query };
}
type StoreUnderTest = ReturnType<typeof storeWithQueries>['store'];

const messageWithId = (id: string) => ({ id }) as MastraDBMessage;

describe('serveTurnScope', () => {
  it('answers the turn’s reads of its own thread without a query, across awaits and timers', async () => {
    const { store, query } = storeWithQueries();
    const reads = await runInTurnScope(createTurnScope(opened), async () => {
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
    await runInTurnScope(createTurnScope(opened), async () => {
      expect(await store.getThreadById({ threadId: 'other' })).toBeNull();
      expect((await store.getThreadById({ threadId: 'diary', resourceId: 'mallory' }))?.title).toBe('as stored');
    });
    expect((await store.getThreadById({ threadId: 'diary' }))?.title).toBe('as stored');
    expect((await runInTurnScope(undefined, () => store.getThreadById({ threadId: 'diary' })))?.title).toBe('as stored');
    expect(query).toHaveBeenCalledTimes(4);
  });

  it('gives each read a copy: a caller that changes it leaves the turn’s thread as opened', async () => {
    const { store } = storeWithQueries();
    const second = await runInTurnScope(createTurnScope(opened), async () => {
      const first = (await store.getThreadById({ threadId: 'diary' }))!;
      first.title = 'changed';
      first.metadata!.personality = 'friend';
      return store.getThreadById({ threadId: 'diary' });
    });
    expect(second).toEqual(opened);
    expect(opened.metadata).toEqual({ personality: 'guru' });
  });

  it.each([
    ['updates', (store: StoreUnderTest) => store.updateThread({ id: 'diary', title: 'renamed', metadata: {} })],
    ['saves', (store: StoreUnderTest) => store.saveThread({ thread: { ...opened, title: 'renamed' } })],
  ])('reads the store again once the turn %s its own thread', async (_name, write) => {
    const { store, query } = storeWithQueries();
    const afterWrite = await runInTurnScope(createTurnScope(opened), async () => {
      await write(store);
      return store.getThreadById({ threadId: 'diary' });
    });
    expect(afterWrite?.title).toBe('renamed');
    expect(query).toHaveBeenCalled();
  });

  it('finds no thread once the turn deletes its own', async () => {
    const { store } = storeWithQueries();
    const afterDelete = await runInTurnScope(createTurnScope(opened), async () => {
      await store.deleteThread({ threadId: 'diary' });
      return store.getThreadById({ threadId: 'diary' });
    });
    expect(afterDelete).toBeNull();
  });

  it("keeps why the turn's latest save of its messages failed in its scope, until a later save lands, and nothing outside a turn", async () => {
    const { store } = storeWithQueries();
    const scope = createTurnScope(opened);
    await runInTurnScope(scope, async () => {
      await expect(store.saveMessages({ messages: [messageWithId('too-much')] })).rejects.toThrow('SQLITE_FULL');
      await store.saveMessages({ messages: [messageWithId('fine')] });
    });
    expect(scope.failedSave).toBeUndefined();
    await runInTurnScope(scope, async () => {
      await store.saveMessages({ messages: [messageWithId('fine')] });
      await expect(store.saveMessages({ messages: [messageWithId('too-much')] })).rejects.toThrow('SQLITE_FULL');
    });
    expect(scope).toMatchObject({ thread: opened, failedSave: new Error('SQLITE_FULL') });
    await expect(store.saveMessages({ messages: [messageWithId('too-much')] })).rejects.toThrow('SQLITE_FULL');
  });

  it("settles a turn's runStored when its run says it has stored its messages, and no other turn's", async () => {
    const [stored, other] = [createTurnScope(opened), createTurnScope(opened)];
    const settled = (scope: ReturnType<typeof createTurnScope>) => Promise.race([scope.runStored.then(() => true), new Promise((resolve) => setTimeout(resolve, 20, false))]);
    markRunStored();
    await runInTurnScope(stored, async () => markRunStored());
    expect([await settled(stored), await settled(other)]).toEqual([true, false]);
  });

  it("settles a turn's runStored when a save of its run's result fails (no processor runs after it), not an earlier one's", async () => {
    const { store } = storeWithQueries();
    const scope = createTurnScope(opened);
    const settled = () => Promise.race([scope.runStored.then(() => true), new Promise((resolve) => setTimeout(resolve, 20, false))]);
    await runInTurnScope(scope, () => expect(store.saveMessages({ messages: [messageWithId('too-much')] })).rejects.toThrow('SQLITE_FULL'));
    expect(await settled()).toBe(false);
    await runInTurnScope(scope, async () => {
      markRunStoring();
      await expect(store.saveMessages({ messages: [messageWithId('too-much')] })).rejects.toThrow('SQLITE_FULL');
    });
    expect(await settled()).toBe(true);
  });
});
