import { describe, expect, it, vi } from 'vitest';
import type { IMastraLogger } from '@mastra/core/logger';
import type { ChunkType } from '@mastra/core/stream';
import { ToolFailure } from '../tools/tool-failure.ts';
import { createToolErrors } from './tool-errors.ts';

function processorWithLog() {
  const warn = vi.fn();
  const processor = createToolErrors({ warn } as unknown as IMastraLogger);
  const processPart = (part: unknown) => processor.processOutputStream!({ part: part as ChunkType, streamParts: [], state: {} } as never);
  return { warn, processPart };
}

/** A tool's failure as Mastra hands it on: a plain Error, the tool's own error as its cause. */
function toolErrorPart(cause: Error) {
  const error = Object.assign(new Error(cause.message, { cause }), { id: 'TOOL_EXECUTION_FAILED' });
  return { type: 'tool-error', runId: 'r', from: 'AGENT', payload: { error, toolCallId: 'call_1', toolName: 'weatherTool' } };
}

describe('tool errors', () => {
  it('puts the message of a tool-error chunk into its JSON', async () => {
    const { processPart } = processorWithLog();
    const part = toolErrorPart(new ToolFailure('Location "Atlantis" was not found', 'not-found'));
    expect(JSON.parse(JSON.stringify(part.payload.error))).not.toHaveProperty('message');
    const processed = (await processPart(part)) as typeof part;
    expect(JSON.parse(JSON.stringify(processed.payload.error))).toMatchObject({ message: 'Location "Atlantis" was not found', id: 'TOOL_EXECUTION_FAILED' });
    expect(processed.payload.error).toBeInstanceOf(Error);
  });

  it('logs the tool, the reason and the upstream status, never the message (it can quote the user)', async () => {
    const { warn, processPart } = processorWithLog();
    await processPart(toolErrorPart(new ToolFailure('Weather service answered 503', 'upstream-status', { upstreamStatus: 503 })));
    await processPart(toolErrorPart(new ToolFailure('Location "My secret street" was not found', 'not-found')));
    expect(warn.mock.calls).toEqual([
      ['tool failed', { tool: 'weatherTool', errorClass: 'ToolFailure', reason: 'upstream-status', upstreamStatus: 503 }],
      ['tool failed', { tool: 'weatherTool', errorClass: 'ToolFailure', reason: 'not-found', upstreamStatus: undefined }],
    ]);
  });

  it('passes every other chunk through untouched, unlogged', async () => {
    const { warn, processPart } = processorWithLog();
    const part = { type: 'text-delta', runId: 'r', from: 'AGENT', payload: { id: '1', text: 'Hi' } };
    expect(await processPart(part)).toBe(part);
    expect(warn).not.toHaveBeenCalled();
  });
});
