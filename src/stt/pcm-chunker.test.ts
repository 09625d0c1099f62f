import { describe, expect, it } from 'vitest';
import { chunkAtPauses, isSilent } from './pcm-chunker.ts';

const RATE = 1000; // 10 samples per 10 ms frame: small numbers, same arithmetic as 16 kHz

/** `seconds` of a loud tone (or of silence) as 16-bit PCM. */
function tone(seconds: number, amplitude = 10_000): Int16Array {
  return Int16Array.from({ length: Math.round(seconds * RATE) }, (_, i) => (i % 2 ? amplitude : -amplitude));
}

function bytes(...parts: Int16Array[]): Buffer {
  return Buffer.concat(parts.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength)));
}

/** The stream as a reader would see it: pieces of arbitrary (even odd) sizes. */
async function* pieces(data: Buffer, size: number) {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

async function chunks(data: Buffer, maxSeconds: number, pieceSize = 333) {
  const out: Int16Array[] = [];
  for await (const chunk of chunkAtPauses(pieces(data, pieceSize), { sampleRate: RATE, maxSeconds })) out.push(chunk);
  return out;
}

describe('chunkAtPauses', () => {
  it('cuts in the pause, not through the speech around it', async () => {
    const input = bytes(tone(6), tone(0.5, 0), tone(3.5));
    const out = await chunks(input, 8);
    expect(out).toHaveLength(2);
    // The cut is near the middle of the pause: silence on both sides of it, all the tone kept whole.
    expect(out[0].length / RATE).toBeCloseTo(6.25, 1);
    expect(isSilent(out[0].subarray(6 * RATE))).toBe(true);
    expect(isSilent(out[1].subarray(0, out[1].length - 3.5 * RATE))).toBe(true);
    expect(isSilent(out[1].subarray(out[1].length - 3.5 * RATE))).toBe(false);
  });

  it('never makes a chunk longer than the limit, even without any pause', async () => {
    const out = await chunks(bytes(tone(25)), 8);
    expect(out.every((c) => c.length <= 8 * RATE)).toBe(true);
    expect(out.reduce((sum, c) => sum + c.length, 0)).toBe(25 * RATE);
  });

  it('gives back every sample, in order', async () => {
    const ramp = Int16Array.from({ length: 30 * RATE }, (_, i) => (i % 3000) - 1500);
    const input = bytes(ramp);
    const out = await chunks(input, 7, 777);
    expect(bytes(...out).equals(input)).toBe(true);
  });

  it('keeps a short recording whole and drops a trailing odd byte', async () => {
    const input = Buffer.concat([bytes(tone(1.5)), Buffer.from([7])]);
    const out = await chunks(input, 8);
    expect(out).toHaveLength(1);
    expect(out[0].length).toBe(1.5 * RATE);
  });

  it('yields nothing for an empty stream', async () => {
    expect(await chunks(Buffer.alloc(0), 8)).toEqual([]);
  });
});

describe('isSilent', () => {
  it('is true for digital silence and faint hiss, false for speech-level sound', () => {
    expect(isSilent(new Int16Array(1000))).toBe(true);
    expect(isSilent(tone(1, 40))).toBe(true);
    expect(isSilent(tone(1, 500))).toBe(false);
  });
});
