/**
 * @module Splits a stream of 16-bit mono PCM into chunks of at most `maxSeconds`, each cut in the
 * quietest quarter-second of its second half, so cuts fall in pauses between words rather than
 * through them. Memory stays bounded by one chunk whatever the length of the recording, and the
 * chunks come out in order. No loudness threshold is needed: the quietest stretch is a pause in
 * speech recorded anywhere, from a studio to a street.
 */

export interface ChunkerOptions {
  sampleRate: number;
  maxSeconds: number;
}

const FRAME_SECONDS = 0.01;
const PAUSE_SECONDS = 0.25;

/** Chunks of the stream as Int16Arrays of their own (so they can be sent to a worker whole). */
export async function* chunkAtPauses(source: AsyncIterable<Buffer>, options: ChunkerOptions): AsyncGenerator<Int16Array> {
  const maxBytes = Math.max(2, Math.floor(options.maxSeconds * options.sampleRate)) * 2;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const data of source) {
    pending.push(data);
    pendingBytes += data.length;
    while (pendingBytes >= maxBytes) {
      const buffered = Buffer.concat(pending, pendingBytes);
      const cut = quietestCut(buffered, maxBytes, options.sampleRate);
      yield samples(buffered, 0, cut);
      pending = [buffered.subarray(cut)];
      pendingBytes = buffered.length - cut;
    }
  }
  const rest = Buffer.concat(pending, pendingBytes);
  if (rest.length >= 2) yield samples(rest, 0, rest.length - (rest.length % 2));
}

function samples(buffer: Buffer, start: number, end: number): Int16Array {
  return new Int16Array(buffer.buffer.slice(buffer.byteOffset + start, buffer.byteOffset + end));
}

/** Byte offset, in the second half of the first `maxBytes`, at the middle of the quietest pause. */
function quietestCut(buffer: Buffer, maxBytes: number, sampleRate: number): number {
  const frameBytes = Math.round(sampleRate * FRAME_SECONDS) * 2;
  const pauseFrames = Math.round(PAUSE_SECONDS / FRAME_SECONDS);
  const firstFrame = Math.floor(maxBytes / 2 / frameBytes);
  const frames = Math.floor(maxBytes / frameBytes);
  if (frames - firstFrame < pauseFrames) return maxBytes;
  const energy: number[] = [];
  for (let f = firstFrame; f < frames; f++) energy.push(frameEnergy(buffer, f * frameBytes, frameBytes));
  // Sliding sums of `pauseFrames` frames; among equally quiet windows in a row, the middle one
  // (a long pause is cut in its middle, leaving some silence on both sides).
  const windows = [energy.slice(0, pauseFrames).reduce((a, b) => a + b, 0)];
  for (let i = pauseFrames; i < energy.length; i++) windows.push(windows[windows.length - 1] + energy[i] - energy[i - pauseFrames]);
  const quietest = Math.min(...windows);
  const first = windows.indexOf(quietest);
  let last = first;
  while (last + 1 < windows.length && windows[last + 1] === quietest) last++;
  return (firstFrame + Math.floor((first + last) / 2) + Math.floor(pauseFrames / 2)) * frameBytes;
}

function frameEnergy(buffer: Buffer, offset: number, length: number): number {
  let sum = 0;
  for (let i = offset; i < offset + length; i += 2) {
    const sample = buffer.readInt16LE(i);
    sum += sample * sample;
  }
  return sum;
}

/** True when nothing in the chunk rises above the quietest whisper a 16-bit recording can hold (-54 dBFS). */
export function isSilent(pcm: Int16Array): boolean {
  for (const sample of pcm) if (sample > 64 || sample < -64) return false;
  return true;
}
