import type { MemoryStorage } from '@mastra/core/storage';
import { describe, expect, it } from 'vitest';
import { deferred } from '../../tests/fixtures/openai-stand-in.ts';
import { deleteThreadsAfterTheirWrites } from './deletion-after-writes.ts';

type Store = Pick<MemoryStorage, 'saveMessages' | 'saveThread' | 'deleteThread'>;
type Saved = Parameters<Store['saveMessages']>[0]['messages'];

/** A store that records what reaches it, in order; `slowSave` holds the next save until it is resolved. */
function recordingStore() {
  const log: string[] = [];
  let slowSave: Promise<void> | undefined;
  const store = {
    async saveMessages({ messages }: { messages: Saved }) {
      const hold = slowSave;
      slowSave = undefined;
      await hold;
      log.push(`save ${messages.map((message) => message.id).join(',')}`);
      return { messages };
    },
    async saveThread({ thread }: { thread: { id: string } }) {
      log.push(`thread ${thread.id}`);
      return thread;
    },
    async deleteThread({ threadId }: { threadId: string }) {
      if (threadId === 'unreachable') throw new Error('the store is down');
      log.push(`delete ${threadId}`);
    },
  } as unknown as Store;
  deleteThreadsAfterTheirWrites(store);
  return { store, log, holdNextSave: (until: Promise<void>) => (slowSave = until) };
}

const message = (id: string, threadId: string) => ({ id, threadId, resourceId: 'ada', role: 'assistant' }) as unknown as Saved[number];

describe('deleteThreadsAfterTheirWrites', () => {
  it('lets the saves in flight to a thread land before its deletion, and drops the ones that come after', async () => {
    const { store, log, holdNextSave } = recordingStore();
    const slow = deferred();
    holdNextSave(slow.promise);
    const inFlight = store.saveMessages({ messages: [message('draft', 't')] });
    const deletion = store.deleteThread({ threadId: 't' });
    await store.saveMessages({ messages: [message('late', 't'), message('elsewhere', 'u')] });
    slow.resolve();
    await Promise.all([inFlight, deletion]);
    expect(log).toEqual(['save elsewhere', 'save draft', 'delete t']);
  });

  it('takes saves again once the thread is created anew', async () => {
    const { store, log } = recordingStore();
    await store.deleteThread({ threadId: 't' });
    await store.saveThread({ thread: { id: 't' } } as Parameters<Store['saveThread']>[0]);
    await store.saveMessages({ messages: [message('new', 't')] });
    expect(log).toEqual(['delete t', 'thread t', 'save new']);
  });

  it('drops nothing for a thread whose deletion failed', async () => {
    const { store, log } = recordingStore();
    await expect(store.deleteThread({ threadId: 'unreachable' })).rejects.toThrow('the store is down');
    await store.saveMessages({ messages: [message('kept', 'unreachable')] });
    expect(log).toEqual(['save kept']);
  });
});
