import { describe, expect, it } from 'vitest';
import type { ChunkType } from '@mastra/core/stream';
import { readableToolErrors } from './readable-tool-errors.ts';

const processPart = (part: unknown) =>
  readableToolErrors.processOutputStream!({ part: part as ChunkType, streamParts: [], state: {} } as never);

describe('readableToolErrors', () => {
  it('puts the message of a tool-error chunk into its JSON', async () => {
    const error = Object.assign(new Error('Location "Atlantis" was not found'), { id: 'TOOL_EXECUTION_FAILED' });
    expect(JSON.parse(JSON.stringify(error))).not.toHaveProperty('message');
    const part = { type: 'tool-error', runId: 'r', from: 'AGENT', payload: { error, toolCallId: 'call_1', toolName: 'weatherTool' } };
    const processed = (await processPart(part)) as typeof part;
    expect(JSON.parse(JSON.stringify(processed.payload.error))).toMatchObject({
      message: 'Location "Atlantis" was not found',
      id: 'TOOL_EXECUTION_FAILED',
    });
    expect(processed.payload.error).toBeInstanceOf(Error);
  });

  it('passes every other chunk through untouched', async () => {
    const part = { type: 'text-delta', runId: 'r', from: 'AGENT', payload: { id: '1', text: 'Hi' } };
    expect(await processPart(part)).toBe(part);
  });
});
