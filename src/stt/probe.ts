/**
 * @module Decides what an upload is from its content alone, never its name or the client's content type:
 * its first bytes must be one of the accepted containers, `ffprobe` must find an accepted audio codec in
 * it, and `ffmpeg` must decode its audio from start to end without an error (which catches damaged and
 * truncated files, and measures the duration even when the container does not state it; an Ogg file, which
 * ffmpeg decodes when cut short as shorter audio, must also be whole pages up to its end). That decode can
 * keep its result as 16 kHz mono PCM in a file, for an engine that transcribes PCM: the upload is then
 * decoded once, not twice. Every engine's readiness includes whether these programs are installed.
 */
import { execFile } from 'node:child_process';
import { open, type FileHandle } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import { audioTooLong, missingProgram, toSttError, unsupportedAudio } from '../contract/stt.ts';
import { SAMPLE_RATE } from '../mastra/public/stt/pocketsphinx.ts';
import type { AudioFormat } from '../contract/stt.ts';
import type { EngineReadiness } from './engine.ts';
import { Slots } from './slots.ts';

const run = promisify(execFile);

export interface ProbedAudio {
  format: AudioFormat;
  durationSeconds: number;
}

/** Generous: decoding 25 MB of MP3 takes about a second of one core. */
const PROGRAM_TIMEOUT_MS = 120_000;

/** How each accepted format looks to ffprobe (its demuxer's name and the audio codecs it may hold), and its container's name. */
const FORMATS: Record<AudioFormat, { demuxer: string; codecs: RegExp; container: string }> = {
  mp3: { demuxer: 'mp3', codecs: /^mp3$/, container: 'an MP3' },
  wav: { demuxer: 'wav', codecs: /^pcm_/, container: 'a WAV' },
  m4a: { demuxer: 'mov,mp4,m4a,3gp,3g2,mj2', codecs: /^(aac|alac)$/, container: 'an MP4' },
  flac: { demuxer: 'flac', codecs: /^flac$/, container: 'a FLAC' },
  ogg: { demuxer: 'ogg', codecs: /^(vorbis|opus)$/, container: 'an Ogg' },
  webm: { demuxer: 'matroska,webm', codecs: /^(opus|vorbis)$/, container: 'a WebM' },
};

/** ffprobe's warnings that mean the file ends before its own header says it does. */
const TRUNCATION_WARNINGS = /filesize and duration do not match|partial file|ended prematurely/i;

export interface ProbeOptions {
  /** The longest audio accepted: a longer upload is refused as soon as its length is known, and never decoded past it. */
  maxSeconds: number;
  signal?: AbortSignal;
  /** Where to write the decoded audio as 16 kHz mono 16-bit PCM; by default it is decoded to nowhere. */
  pcmPath?: string;
}

/** ffmpeg's output options for the PCM an engine that `usesPcm` transcribes: mono, 16-bit, at PocketSphinx's rate. */
export const PCM_OUTPUT_OPTIONS = ['-ac', '1', '-ar', String(SAMPLE_RATE), '-f', 's16le'];

/** The programs every upload is probed with, whichever engine then transcribes it (both come with Debian's ffmpeg). */
const PROBE_PROGRAMS = ['ffprobe', 'ffmpeg'] as const;

/** Both found once: they do not go away, so later readiness polls run neither (no engine checks them on its own). */
let probeProgramsFound = false;

/**
 * Whether uploads can be probed: part of every engine's readiness, since without these programs each upload
 * fails before an engine sees it. Each is run (`-version`), found as a probe finds it.
 */
export async function probeReadiness(): Promise<EngineReadiness> {
  if (probeProgramsFound) return { ok: true };
  for (const program of PROBE_PROGRAMS) {
    const runs = await runProgram(program, ['-version']).then(
      (result) => !result.failed,
      () => false,
    );
    if (!runs) return { ok: false, detail: missingProgram(program, 'ffmpeg').message };
  }
  probeProgramsFound = true;
  return { ok: true };
}

/** More audio missing from a FLAC than its header counts than rounding explains: frames were skipped, damaged. */
const FLAC_MISSING_AUDIO_SECONDS = 0.1;

/**
 * A codec's priming and padding count in both the stated and the decoded length (an MP3's encoder delay and last
 * frame, AAC's priming, Opus's pre-skip: under 0.1 s), so audio of exactly the limit must not be refused for them.
 */
const CODEC_PADDING_SECONDS = 0.25;

/** Decoding runs off the event loop, in child processes: one upload's at a time per core, the others queued. */
const decoding = new Slots(availableParallelism());

export function probeAudio(path: string, options: ProbeOptions): Promise<ProbedAudio> {
  return decoding.run(() => probe(path, options), options.signal);
}

async function probe(path: string, { maxSeconds, signal, pcmPath }: ProbeOptions): Promise<ProbedAudio> {
  const candidates = formatsBySignature(await readHead(path));
  if (candidates.length === 0) throw unsupportedAudio('its content is not audio in any of these formats');
  if (candidates.includes('wav')) await completeStreamedWav(path);
  if (candidates.includes('ogg')) await assertCompleteOgg(path);
  const { format, statedSeconds } = await containedFormat(path, candidates, signal);
  // A 6 kbps Opus holds 10 hours in 25 MB: refused before any of it is decoded when its container says so.
  if (statedSeconds !== undefined && statedSeconds > maxSeconds + CODEC_PADDING_SECONDS) throw audioTooLong(maxSeconds);
  const durationSeconds = await decodedDuration(path, { pcmPath, maxSeconds, signal });
  if (durationSeconds > maxSeconds + CODEC_PADDING_SECONDS) throw audioTooLong(maxSeconds);
  // A FLAC frame whose sync code is damaged is skipped without a word (no checksum is read): fewer samples than its header counts tell.
  if (format === 'flac' && statedSeconds !== undefined && statedSeconds - durationSeconds > FLAC_MISSING_AUDIO_SECONDS) {
    throw unsupportedAudio('it is damaged (part of its audio cannot be decoded)');
  }
  if (durationSeconds === 0) throw unsupportedAudio('it contains no audio samples');
  return { format, durationSeconds };
}

async function readHead(path: string): Promise<Buffer> {
  const file = await open(path);
  try {
    const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(64), position: 0 });
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/** The accepted formats whose signature the file starts with; empty for anything else. */
function formatsBySignature(head: Buffer): AudioFormat[] {
  const text = (start: number, end: number) => head.toString('latin1', start, end);
  // An ID3 tag can precede MP3 and (though non-standard) FLAC; ffprobe tells them apart.
  if (text(0, 3) === 'ID3') return ['mp3', 'flac'];
  // An MPEG audio frame header: 11 sync bits.
  if (head[0] === 0xff && head.length > 1 && (head[1]! & 0xe0) === 0xe0) return ['mp3'];
  if (text(0, 4) === 'RIFF' && text(8, 12) === 'WAVE') return ['wav'];
  if (text(4, 8) === 'ftyp') return ['m4a'];
  if (text(0, 4) === 'fLaC') return ['flac'];
  if (text(0, 4) === 'OggS') return ['ogg'];
  // EBML: WebM, or another Matroska file, which is not accepted; the header's DocType says which.
  if (head.length >= 4 && head.readUInt32BE(0) === 0x1a45dfa3) return text(0, head.length).includes('webm') ? ['webm'] : [];
  return [];
}

/**
 * The lengths a WAV writer puts in its header when it cannot know them (it writes to a pipe and cannot seek back):
 * ffmpeg and arecord one of the first three, sox its own large round number.
 */
const UNKNOWN_WAV_LENGTHS = new Set([0, 0x7fffffff, 0xffffffff, 0x7ffff000]);

/**
 * A WAV written to a pipe (ffmpeg or sox to stdout, arecord) says "length unknown" in its header, and ffmpeg
 * then flags its last packet as corrupt: a complete recording read as a truncated one. The upload is all there
 * is, so such a header is given the lengths the file has (the upload is the service's own temporary copy).
 */
async function completeStreamedWav(path: string): Promise<void> {
  const file = await open(path, 'r+');
  try {
    const { size } = await file.stat();
    const header = Buffer.alloc(8);
    // After `RIFF <length> WAVE`, chunks of `<id> <length>`, each padded to an even length.
    for (let offset = 12; offset + 8 <= size; ) {
      await file.read({ buffer: header, position: offset });
      const length = header.readUInt32LE(4);
      if (header.toString('latin1', 0, 4) !== 'data') {
        offset += 8 + length + (length % 2);
        continue;
      }
      if (!UNKNOWN_WAV_LENGTHS.has(length)) return;
      await file.write(uint32(size - offset - 8), 0, 4, offset + 4);
      await file.write(uint32(size - 8), 0, 4, 4);
      return;
    }
  } finally {
    await file.close();
  }
}

/** An Ogg page header up to its segment table: `OggS`, version, flags, granule, serial, sequence, CRC, segment count. */
const OGG_HEADER_BYTES = 27;
/** The header with its longest segment table: 255 lacing values, whose sum is the length of the page's data. */
const OGG_MAX_HEADER_BYTES = OGG_HEADER_BYTES + 255;
const oggCutOff = () => unsupportedAudio('it is truncated (its last Ogg page is cut off)');

/**
 * ffmpeg decodes an Ogg file cut short without an error, as shorter audio, but each Ogg page states its own
 * length: a complete file is whole pages. A file cut mid-page is not. One cut exactly where a page ends cannot be
 * told from a whole one: the end-of-stream flag a writer may set on its last page is no test, since Android's
 * recorder never sets it.
 */
async function assertCompleteOgg(path: string): Promise<void> {
  const file = await open(path);
  try {
    const { size } = await file.stat();
    const headerAt = oggHeaderReader(file, size);
    for (let offset = 0; offset < size; ) {
      offset += oggPageLength(await headerAt(offset));
      if (offset > size) throw oggCutOff();
    }
  } finally {
    await file.close();
  }
}

/**
 * The file's bytes from `offset` on, at least a page header's worth unless the file ends first, read through one
 * window: a file of thousands of tiny pages costs a few reads, not one each.
 */
function oggHeaderReader(file: FileHandle, size: number): (offset: number) => Promise<Buffer> {
  const window = Buffer.alloc(64 * 1024);
  let start = 0;
  let end = 0;
  return async (offset) => {
    if (offset + OGG_MAX_HEADER_BYTES > end && end < size) {
      const { bytesRead } = await file.read({ buffer: window, position: offset });
      [start, end] = [offset, offset + bytesRead];
    }
    return window.subarray(offset - start, end - start);
  };
}

/** The whole length of the page whose header `bytes` start with. */
function oggPageLength(bytes: Buffer): number {
  if (bytes.length < OGG_HEADER_BYTES) throw oggCutOff();
  if (bytes.toString('latin1', 0, 4) !== 'OggS') throw unsupportedAudio('it is damaged (it is not a sequence of Ogg pages)');
  const headerBytes = OGG_HEADER_BYTES + bytes[26]!;
  if (bytes.length < headerBytes) throw oggCutOff();
  return headerBytes + bytes.subarray(OGG_HEADER_BYTES, headerBytes).reduce((sum, lacing) => sum + lacing, 0);
}

function uint32(value: number): Buffer {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32LE(value);
  return bytes;
}

interface FfprobeReport {
  format?: { format_name?: string; duration?: string };
  streams?: Array<{ codec_type?: string; codec_name?: string }>;
}

/** ffprobe's warning that the length it reports is a guess from the first frames' bit rate (an MP3 without a length header). */
const ESTIMATED_DURATION = /estimating duration from bitrate/i;

/** The format, and the length the container states, if it states one (a WebM written to a pipe does not). */
async function containedFormat(path: string, candidates: AudioFormat[], signal?: AbortSignal): Promise<{ format: AudioFormat; statedSeconds?: number }> {
  const args = ['-v', 'warning', '-print_format', 'json', '-show_entries', 'format=format_name,duration:stream=codec_type,codec_name', '--', path];
  const result = await runProgram('ffprobe', args, signal);
  if (result.failed) throw unsupportedAudio('it could not be read as audio (damaged, truncated or not audio at all)');
  if (TRUNCATION_WARNINGS.test(result.stderr)) throw unsupportedAudio('it is truncated (it ends before its header says it does)');
  const report = JSON.parse(result.stdout) as FfprobeReport;
  const demuxer = report.format?.format_name ?? 'unknown';
  const audio = (report.streams ?? []).find((stream) => stream.codec_type === 'audio');
  if (audio === undefined) throw unsupportedAudio('it contains no audio stream');
  const codec = audio.codec_name ?? 'unknown';
  const format = candidates.find((candidate) => FORMATS[candidate].demuxer === demuxer && FORMATS[candidate].codecs.test(codec));
  if (format === undefined) {
    const container = Object.values(FORMATS).find((known) => known.demuxer === demuxer)?.container ?? `${/^[aeiou]/i.test(demuxer) ? 'an' : 'a'} ${demuxer}`;
    throw unsupportedAudio(`it holds ${codec} audio in ${container} container`);
  }
  const stated = Number(report.format?.duration);
  return { format, statedSeconds: Number.isFinite(stated) && !ESTIMATED_DURATION.test(result.stderr) ? stated : undefined };
}

/**
 * Decodes the first audio stream (to nowhere, or to PCM), a second past `maxSeconds` at most, so audio over the
 * limit shows as longer than it without being decoded whole: any decoding error means a damaged file.
 */
async function decodedDuration(path: string, { pcmPath, maxSeconds, signal }: ProbeOptions): Promise<number> {
  const output = ['-t', String(maxSeconds + 1), ...(pcmPath ? [...PCM_OUTPUT_OPTIONS, '-y', pcmPath] : ['-f', 'null', '-'])];
  // Timestamps counted from the samples: a chained Ogg (two recordings one after the other) starts its clock again,
  // which ffmpeg's output would report as an error, though every sample decodes.
  // Frames that carry a checksum (every FLAC frame) are checked: ffmpeg otherwise decodes a damaged one as noise.
  const args = ['-nostdin', '-v', 'error', '-xerror', '-err_detect', 'crccheck', '-i', path, '-map', '0:a:0', '-af', 'asetpts=N/SR/TB', '-progress', 'pipe:1', '-nostats', ...output];
  const result = await runProgram('ffmpeg', args, signal);
  if (result.failed || result.stderr.trim() !== '') throw unsupportedAudio('it is damaged or truncated (its audio cannot be decoded to the end)');
  const microseconds = [...result.stdout.matchAll(/^out_time_us=(\d+)$/gm)].at(-1)?.[1];
  return Math.round(Number(microseconds ?? 0) / 1000) / 1000;
}

interface ProgramResult {
  stdout: string;
  stderr: string;
  /** It ran and exited with an error status. */
  failed: boolean;
}

async function runProgram(program: (typeof PROBE_PROGRAMS)[number], args: string[], signal?: AbortSignal): Promise<ProgramResult> {
  try {
    const { stdout, stderr } = await run(program, args, { signal, timeout: PROGRAM_TIMEOUT_MS, maxBuffer: 1024 * 1024 });
    return { stdout, stderr, failed: false };
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stdout?: string; stderr?: string; killed?: boolean };
    if (failure.code === 'ENOENT') throw missingProgram(program, 'ffmpeg');
    if (typeof failure.code === 'number' && !failure.killed) return { stdout: failure.stdout ?? '', stderr: failure.stderr ?? '', failed: true };
    throw toSttError(error);
  }
}
