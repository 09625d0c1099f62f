import { Memory } from '@mastra/memory';
import type { MastraCompositeStore } from '@mastra/core/storage';
import type { Config } from '../../mastra.config.ts';

/** Conversation memory on the service's store; `undefined` when storage is switched off. */
export function createMemory(storage: MastraCompositeStore | undefined, options: Config['memory']) {
  if (!storage) return undefined;
  return new Memory({
    storage,
    options: {
      // A bounded window keeps a long thread as cheap per turn as a short one.
      lastMessages: options.lastMessages,
      semanticRecall: false,
    },
  });
}
