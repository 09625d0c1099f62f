/**
 * A streamed model reply is decoded by a patched @ai-sdk/provider-utils (patches/@ai-sdk+provider-utils+*.patch): a
 * plain decoding stream in place of Node's `TextDecoderStream`, whose end builds an error for its writable side on
 * every reply. It decodes as that did: a character split between network chunks arrives whole, an invalid byte reads
 * as U+FFFD.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { expect, it } from 'vitest';

/** A Chat Completions stream of `pieces` as its bytes, a chunk every `chunkBytes` bytes (splitting characters). */
function replyBytes(pieces: Array<string | Uint8Array>, chunkBytes: number): Uint8Array[] {
  const encoder = new TextEncoder();
  const frame = (delta: object, finishReason: string | null) =>
    `data: ${JSON.stringify({ id: 'r', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;
  // A piece given as bytes is written inside its JSON string as it is, valid UTF-8 or not.
  const contentFrame = (piece: string | Uint8Array) => {
    if (typeof piece === 'string') return encoder.encode(frame({ content: piece }, null));
    const [before, after] = frame({ content: '\u0000' }, null).split('\\u0000');
    return new Uint8Array([...encoder.encode(before), ...piece, ...encoder.encode(after)]);
  };
  const bytes = new Uint8Array([
    ...pieces.flatMap((piece) => [...contentFrame(piece)]),
    ...encoder.encode(frame({}, 'stop') + 'data: [DONE]\n\n'),
  ]);
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += chunkBytes) chunks.push(bytes.slice(start, start + chunkBytes));
  return chunks;
}

/** The text of a reply streamed to the OpenAI provider in `chunks`. */
async function streamedText(chunks: Uint8Array[]): Promise<string> {
  const fetch = async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          for (const chunk of chunks) controller.enqueue(chunk);
          controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  const model = createOpenAI({ apiKey: 'test', baseURL: 'http://127.0.0.1:9/v1', fetch }).chat('m');
  const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }] });
  let text = '';
  for await (const part of stream) if (part.type === 'text-delta') text += part.delta;
  return text;
}

it.each([1, 2, 3, 5])('a reply whose bytes arrive %i at a time reads whole, every character split between chunks', async (chunkBytes) => {
  const pieces = ['Namasté, ', 'Ūṣā 🙏 ', '— 静かな朝'];
  expect(await streamedText(replyBytes(pieces, chunkBytes))).toBe(pieces.join(''));
});

it('an invalid byte in a reply reads as U+FFFD, as TextDecoderStream reads it', async () => {
  const invalid = new Uint8Array([0x6f, 0x6b, 0xff, 0x21]);
  expect(await streamedText(replyBytes([invalid], 1))).toBe('ok\uFFFD!');
});
