/**
 * @module The last output processor of a stored turn: when it runs, memory's processors before it have stored the
 * turn's messages, whether the run finished or was stopped. It tells the turn (turn-thread.ts), so a turn whose stream
 * ended before its run did (a native client that left: Mastra's adapter stops reading the run) lets its thread go only
 * once the reply is in it.
 */
import type { Processor, ProcessOutputResultArgs } from '@mastra/core/processors';
import { markRunStored } from '../../threads/turn-thread.ts';

export class RunStored implements Processor<'run-stored'> {
  readonly id = 'run-stored';

  processOutputResult({ messageList }: ProcessOutputResultArgs) {
    markRunStored();
    return messageList;
  }
}
