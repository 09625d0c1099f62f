/**
 * @module An output processor for failed tool calls, which the model is told about and the request
 * survives, so nothing else reports them:
 * - it logs each one (`tool failed`, at warn): the tool, the failure's class, its reason and the upstream
 *   status, never its message, which is written for the model and can quote the user's words (a place);
 * - it keeps the failure's message in the native stream. Mastra rebuilds a tool's error as a plain `Error`
 *   before the `tool-error` chunk goes out, and `JSON.stringify` leaves an Error's message out (it is not
 *   enumerable), so Studio and `@mastra/client-js` received an error without a message and Studio showed
 *   "[object Object]". The SPEC stream reads the message directly and is unaffected.
 */
import type { IMastraLogger } from '@mastra/core/logger';
import type { OutputProcessor } from '@mastra/core/processors';
import type { ToolFailure } from '../tools/tool-failure.ts';

/** What a tool's own failure says of itself; Mastra keeps it as the cause (any other error has a name only). */
type ToolFailureFields = Partial<Pick<ToolFailure, 'name' | 'reason' | 'upstreamStatus'>>;

export function createToolErrors(logger: IMastraLogger): OutputProcessor {
  return {
    id: 'tool-errors',
    description: 'Logs each failed tool call, and keeps its message in the serialized tool-error chunk.',
    async processOutputStream({ part }) {
      if (part.type !== 'tool-error') return part;
      const { error, toolName } = part.payload;
      const failure = ((error as { cause?: unknown })?.cause ?? error) as ToolFailureFields | undefined;
      logger.warn('tool failed', { tool: toolName, errorClass: failure?.name, reason: failure?.reason, upstreamStatus: failure?.upstreamStatus });
      if (error instanceof Error) withEnumerableMessage(error);
      return part;
    },
  };
}

function withEnumerableMessage(error: Error) {
  if (Object.prototype.propertyIsEnumerable.call(error, 'message')) return;
  Object.defineProperty(error, 'message', { value: error.message, enumerable: true, writable: true, configurable: true });
}
