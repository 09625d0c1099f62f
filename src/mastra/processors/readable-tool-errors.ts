/**
 * @module An output processor that keeps a failed tool's message in the native
 * stream. Mastra rebuilds a tool's error as a plain `Error` before the
 * `tool-error` chunk goes out, and `JSON.stringify` leaves an Error's message
 * out (it is not enumerable), so Studio and `@mastra/client-js` received an
 * error without a message and Studio showed "[object Object]". The SPEC stream
 * reads the message directly and is unaffected.
 */
import type { OutputProcessor } from '@mastra/core/processors';

export const readableToolErrors: OutputProcessor = {
  id: 'readable-tool-errors',
  description: 'Keeps the message of a failed tool call in the serialized tool-error chunk.',
  async processOutputStream({ part }) {
    if (part.type === 'tool-error' && part.payload.error instanceof Error) withEnumerableMessage(part.payload.error);
    return part;
  },
};

function withEnumerableMessage(error: Error) {
  if (Object.prototype.propertyIsEnumerable.call(error, 'message')) return;
  Object.defineProperty(error, 'message', { value: error.message, enumerable: true, writable: true, configurable: true });
}
