import type { LanguageModelV4CallOptions, LanguageModelV4Content, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { uniqueToolCallIds } from './unique-tool-call-ids.ts';

/** A prompt that remembers one call with `id` and its result. */
const rememberingCall = (id: string) =>
  ({
    prompt: [
      { role: 'system', content: 'You are the Friend.' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'weatherTool', input: { location: 'Paris' } }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: id, toolName: 'weatherTool', output: { type: 'json', value: {} } }] },
      { role: 'user', content: [{ type: 'text', text: 'And in Varanasi?' }] },
    ],
  }) as unknown as LanguageModelV4CallOptions;

const call = (toolCallId: string): LanguageModelV4Content => ({ type: 'tool-call', toolCallId, toolName: 'weatherTool', input: '{}' });

async function generated(params: LanguageModelV4CallOptions, content: LanguageModelV4Content[]) {
  const doGenerate = async () => ({ content, finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: {}, warnings: [] });
  const result = await uniqueToolCallIds.wrapGenerate!({ doGenerate, params } as never);
  return result.content.map((part) => (part.type === 'tool-call' ? part.toolCallId : part.type));
}

async function streamed(params: LanguageModelV4CallOptions, parts: LanguageModelV4StreamPart[]) {
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
  const result = await uniqueToolCallIds.wrapStream!({ doStream: async () => ({ stream }), params } as never);
  const read: LanguageModelV4StreamPart[] = [];
  for await (const part of result.stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) read.push(part);
  return read;
}

const FRESH = /^call_1_[0-9a-f]{8}$/;

describe('uniqueToolCallIds', () => {
  it("leaves ids the conversation does not hold as the model wrote them (OpenAI's)", async () => {
    expect(await generated(rememberingCall('call_abc'), [call('call_xyz'), { type: 'text', text: 'hi' }])).toEqual(['call_xyz', 'text']);
  });

  it('gives a fresh id to a call whose id the remembered conversation holds, or this reply already gave, or none', async () => {
    expect(await generated(rememberingCall('call_1'), [call('call_1')])).toEqual([expect.stringMatching(FRESH)]);
    const twice = await generated(rememberingCall('call_abc'), [call('call_1'), call('call_1')]);
    expect(twice).toEqual(['call_1', expect.stringMatching(FRESH)]);
    expect(await generated(rememberingCall('call_abc'), [call('')])).toEqual([expect.stringMatching(/^call_[0-9a-f]{8}$/)]);
  });

  it("keeps the form of a Mistral-style id (9 letters or digits), which such servers take back in no other", async () => {
    const [id] = await generated(rememberingCall('a1B2c3D4e'), [call('a1B2c3D4e')]);
    expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(id).not.toBe('a1B2c3D4e');
  });

  it("leaves a provider's own calls (run by the provider, paired by it) as they are", async () => {
    const own: LanguageModelV4Content = { type: 'tool-call', toolCallId: 'call_1', toolName: 'web_search', input: '{}', providerExecuted: true };
    expect(await generated(rememberingCall('call_1'), [own])).toEqual(['call_1']);
  });

  it("streams a call's input and the call itself under the one id its start got", async () => {
    const parts = await streamed(rememberingCall('call_1'), [
      { type: 'tool-input-start', id: 'call_1', toolName: 'weatherTool' },
      { type: 'tool-input-delta', id: 'call_1', delta: '{}' },
      { type: 'tool-input-end', id: 'call_1' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'weatherTool', input: '{}' },
    ]);
    const ids = parts.map((part) => ('id' in part ? part.id : 'toolCallId' in part ? part.toolCallId : undefined));
    expect(new Set(ids).size).toBe(1);
    expect(ids[0]).toMatch(FRESH);
  });
});
