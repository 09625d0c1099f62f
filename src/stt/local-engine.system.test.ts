/**
 * The local engine on real speech: sentences spoken by flite, in every upload format, short and long.
 * Needs Debian's pocketsphinx, pocketsphinx-en-us, ffmpeg and flite: without them these tests fail.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { children } from '../../tests/fixtures/child-processes.ts';
import { startService } from '../../tests/fixtures/service.ts';
import { PLACE_PHRASES, recording, requireSpeechTools, SAMPLE_RATE, speech, SPEECH_PHRASES, upload } from '../../tests/fixtures/speech.ts';
import { corpusWordErrorRate, wordErrorRate } from '../../tests/fixtures/wer.ts';
import { AUDIO_FORMATS } from '../contract/stt.ts';
import type { SttEngine } from './engine.ts';
import { companionVocabulary } from './companion-vocabulary.ts';
import { CHUNK_SECONDS, createLocalEngine } from './local-engine.ts';
import { chunkAtPauses } from './pcm-chunker.ts';
import { probeAudio } from './probe.ts';
import { INSTALL_COMMAND } from './system-packages.ts';

let engine: SttEngine;
const scratch = mkdtempSync(join(tmpdir(), 'local-engine-test-'));

beforeAll(async () => {
  await requireSpeechTools();
  // As the service makes it; unset settings (undefined, as from an empty environment key) keep their defaults.
  engine = createLocalEngine({ workers: 2, modelDir: undefined, ffmpegPath: undefined, vocabulary: companionVocabulary() });
});
afterAll(async () => {
  await engine.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('local engine: transcripts', () => {
  it('transcribes the companion phrases with a word error rate of at most 15 %', async () => {
    const results = await Promise.all(
      SPEECH_PHRASES.map(async (phrase) => {
        const { transcript, language } = await engine.transcribe(upload({ path: await speech(phrase), format: 'wav' }), {});
        return { reference: phrase, hypothesis: transcript, language };
      }),
    );
    expect(results.every((r) => r.language === 'en')).toBe(true);
    expect(corpusWordErrorRate(results).rate).toBeLessThanOrEqual(0.15);
  }, 180_000);

  it('hears the catalogue\'s places, which Debian\'s general model does not know', async () => {
    const results = await Promise.all(
      PLACE_PHRASES.map(async (phrase) => {
        const { transcript } = await engine.transcribe(upload({ path: await speech(phrase), format: 'wav' }), {});
        return { reference: phrase, hypothesis: transcript };
      }),
    );
    const heard = results.map((result) => result.hypothesis).join(' | ');
    for (const place of ['varanasi', 'rishikesh', 'bodh gaya', 'lumbini', 'kathmandu', 'sarnath']) expect(heard).toContain(place);
    // Without the companion vocabulary: 54 % (measured by npm run bench:stt).
    expect(corpusWordErrorRate(results).rate).toBeLessThanOrEqual(0.25);
  }, 180_000);

  it('transcribes the PCM the probe decoded, without decoding the upload again', async () => {
    const said = 'tell me about the temples of kyoto';
    const file = await speech(said, 'm4a');
    const pcmPath = join(scratch, 'probed.pcm');
    const { durationSeconds } = await probeAudio(file, { maxSeconds: 3600, pcmPath });
    // No ffmpeg at all for this engine: only the probe's PCM can give it the words.
    const withoutDecoder = createLocalEngine({ workers: 1, ffmpegPath: join(scratch, 'no-ffmpeg-here') });
    try {
      const { transcript } = await withoutDecoder.transcribe({ ...upload({ path: file, format: 'm4a', durationSeconds }), pcmPath }, {});
      expect(transcript).toBe(said);
    } finally {
      await withoutDecoder.close();
    }
  }, 60_000);

  it.each(AUDIO_FORMATS)('transcribes %s', async (format) => {
    const file = await recording({ phrases: SPEECH_PHRASES.slice(0, 2), format });
    const { transcript } = await engine.transcribe(upload(file), { language: 'en-US' });
    expect(wordErrorRate(file.text, transcript).rate).toBeLessThanOrEqual(0.15);
  }, 60_000);

  it('transcribes a long recording, cut into chunks (20 s at most), in the order it was said', async () => {
    // Every phrase once, 40 s: three chunks, which the two workers decode side by side.
    const file = await recording();
    expect(await chunksOf(file.path)).toBeGreaterThanOrEqual(3);
    const { transcript } = await engine.transcribe(upload(file), {});
    // A transcript assembled out of order would miss most words at their places.
    expect(wordErrorRate(file.text, transcript).rate).toBeLessThanOrEqual(0.15);
    expect(transcript.startsWith(SPEECH_PHRASES[0].split(' ').slice(0, 3).join(' '))).toBe(true);
  }, 300_000);

  it('gives an empty transcript for silence', async () => {
    const file = join(scratch, 'silence.wav');
    writeFileSync(file, wav(new Int16Array(16_000 * 3)));
    expect(await engine.transcribe(upload({ path: file, format: 'wav' }), {})).toEqual({ transcript: '', language: 'en' });
  });
});

describe('local engine: stopping', () => {
  it('stops decoding when the signal aborts, and keeps working afterwards', async () => {
    const file = await recording({ minSeconds: 60 });
    const controller = new AbortController();
    const transcription = engine.transcribe(upload(file), { signal: controller.signal });
    await vi.waitFor(async () => expect((await busyChildren()).length).toBeGreaterThan(0), { timeout: 30_000, interval: 50 });
    controller.abort();
    await expect(transcription).rejects.toMatchObject({ name: 'AbortError' });
    await vi.waitFor(() => expect(children().filter((c) => c.command === 'ffmpeg')).toEqual([]), { timeout: 5_000 });
    await vi.waitFor(async () => expect(await busyChildren()).toEqual([]), { timeout: 5_000, interval: 100 });

    const after = await engine.transcribe(upload({ path: await speech(SPEECH_PHRASES[0]), format: 'wav' }), {});
    expect(after.transcript).toBe(SPEECH_PHRASES[0]);
  }, 120_000);

  it('does no work at all for an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    const file = upload({ path: await speech(SPEECH_PHRASES[0]), format: 'wav' });
    await expect(engine.transcribe(file, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('local engine: readiness', () => {
  it('runs ffmpeg and ffprobe once for any number of /ready polls, not once per poll', async () => {
    // The service's whole PATH: ffmpeg and ffprobe, each a script that notes its run and runs the real program.
    const path = mkdtempSync(join(scratch, 'path-'));
    const runs = join(scratch, 'program-runs.log');
    for (const program of ['ffmpeg', 'ffprobe']) {
      const real = execFileSync('which', [program], { encoding: 'utf8' }).trim();
      writeFileSync(join(path, program), `#!/bin/sh\necho "${program} $*" >> '${runs}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    }
    const service = await startService({ STT_PROVIDER: 'local', DATABASE_URL: 'none', PATH: path });
    try {
      for (let poll = 0; poll < 3; poll++) {
        const { checks } = await (await fetch(`${service.url}/ready`)).json();
        expect(checks['stt-local']).toEqual({ ok: true });
      }
      expect(existsSync(runs) ? readFileSync(runs, 'utf8').trim().split('\n').sort() : []).toEqual(['ffmpeg -version', 'ffprobe -version']);
    } finally {
      await service.stop();
    }
  }, 60_000);
});

describe('local engine: its files', () => {
  it('keeps hearing its places after a temporary-folder cleaner removed its companion model, once its idle workers have gone', async () => {
    const tempDir = mkdtempSync(join(scratch, 'cleaned-'));
    const cleaned = createLocalEngine({ workers: 1, idleTimeoutMs: 100, vocabulary: companionVocabulary(), tempDir });
    try {
      const said = PLACE_PHRASES[0];
      expect((await cleaned.transcribe(upload({ path: await speech(said), format: 'wav' }), {})).transcript).toContain('varanasi');
      // The scratch folder, which each upload touches, stays; the companion model's folder, written once, goes.
      const [companionDir] = readdirSync(tempDir);
      rmSync(join(tempDir, companionDir!), { recursive: true });
      // Past the idle timeout: the next transcription starts a worker, which reads the companion model.
      await new Promise((resolve) => setTimeout(resolve, 500));

      expect((await cleaned.transcribe(upload({ path: await speech(said), format: 'wav' }), {})).transcript).toContain('varanasi');
    } finally {
      await cleaned.close();
    }
  }, 60_000);

  it('and after a cleaner removed only its files (a cleaner goes by each file\'s age), for every transcription at once', async () => {
    const tempDir = mkdtempSync(join(scratch, 'cleaned-'));
    const cleaned = createLocalEngine({ workers: 2, idleTimeoutMs: 100, vocabulary: companionVocabulary(), tempDir });
    try {
      const said = PLACE_PHRASES[0];
      const file = upload({ path: await speech(said), format: 'wav' });
      expect((await cleaned.transcribe(file, {})).transcript).toContain('varanasi');
      const [companionDir] = readdirSync(tempDir);
      for (const name of readdirSync(join(tempDir, companionDir!))) rmSync(join(tempDir, companionDir!, name));
      await new Promise((resolve) => setTimeout(resolve, 500));

      const transcripts = await Promise.all([cleaned.transcribe(file, {}), cleaned.transcribe(file, {})]);
      expect(transcripts.map(({ transcript }) => transcript.includes('varanasi'))).toEqual([true, true]);
    } finally {
      await cleaned.close();
    }
  }, 60_000);
});

describe('local engine: errors', () => {
  it('refuses another language with a 400 that names the one it supports', async () => {
    const file = upload({ path: await speech(SPEECH_PHRASES[0]), format: 'wav' });
    const refused = engine.transcribe(file, { language: 'fr' });
    await expect(refused).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: { supportedLanguages: ['en'] } });
    await expect(refused).rejects.toThrow(/English only \(language "en"\); "fr" is not supported/);
  });

  it('says which package is missing and how to install it, in transcriptions and in readiness', async () => {
    const file = upload({ path: await speech(SPEECH_PHRASES[0]), format: 'wav' });
    // The engine's own ffmpeg decodes only an upload without the probe's PCM; the probe's ffmpeg on PATH is in
    // readiness (tests/stt-service.system.test.ts), which a missing ffmpegPath does not change.
    const cases = [
      { options: { libraryPath: '/nonexistent/libpocketsphinx.so.3' }, missing: 'libpocketsphinx3', inReadiness: true },
      { options: { ffmpegPath: '/nonexistent/ffmpeg' }, missing: 'ffmpeg', inReadiness: false },
    ];
    for (const { options, missing, inReadiness } of cases) {
      const broken = createLocalEngine({ ...options, workers: 1 });
      try {
        const failure = broken.transcribe(file, {});
        await expect(failure).rejects.toMatchObject({
          status: 500,
          code: 'AUDIO_PROCESSING_ERROR',
          details: { missingPackage: missing, install: INSTALL_COMMAND },
        });
        await expect(failure).rejects.toThrow(`Debian package ${missing}`);
        await expect(failure).rejects.toThrow(INSTALL_COMMAND);
        if (inReadiness) {
          const readiness = await broken.readiness();
          expect(readiness.ok).toBe(false);
          expect(readiness.detail).toContain(`Debian package ${missing}`);
          expect(readiness.detail).toContain(INSTALL_COMMAND);
        }
      } finally {
        await broken.close();
      }
    }
    expect(await engine.readiness()).toEqual({ ok: true });
  });

  it('blames the setting, not a package, for a model folder the configuration names that holds no model', async () => {
    const misconfigured = createLocalEngine({ modelDir: '/nonexistent/model', workers: 1 });
    try {
      const failure = misconfigured.transcribe(upload({ path: await speech(SPEECH_PHRASES[0]), format: 'wav' }), {});
      await expect(failure).rejects.toMatchObject({ status: 500, code: 'AUDIO_PROCESSING_ERROR', details: { setting: 'STT_LOCAL_MODEL_DIR' } });
      await expect(failure).rejects.toThrow('the folder STT_LOCAL_MODEL_DIR names holds no PocketSphinx model');
      expect(await misconfigured.readiness()).toEqual({ ok: false, detail: expect.stringContaining('STT_LOCAL_MODEL_DIR') });
    } finally {
      await misconfigured.close();
    }
  });

  it('answers a 500 that reveals no path for audio that cannot be decoded', async () => {
    const file = join(scratch, 'not-audio.mp3');
    writeFileSync(file, 'this is a text file, not audio\n'.repeat(100));
    const failure = engine.transcribe(upload({ path: file, format: 'mp3' }), {});
    await expect(failure).rejects.toMatchObject({ status: 500, code: 'AUDIO_PROCESSING_ERROR', details: {} });
    await expect(failure).rejects.toThrow('The audio could not be decoded for transcription.');
  });
});

/** How many chunks the engine cuts a recording into (its samples follow a 44-byte WAV header), at its 20 s bound. */
async function chunksOf(path: string): Promise<number> {
  let count = 0;
  for await (const _ of chunkAtPauses(createReadStream(path, { start: 44 }), { sampleRate: SAMPLE_RATE, maxSeconds: CHUNK_SECONDS })) count++;
  return count;
}

/** 16 kHz mono 16-bit WAV of the given samples. */
function wav(samples: Int16Array): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + samples.byteLength, 4);
  header.write('WAVEfmt ', 8, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(samples.byteLength, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer)]);
}

/** Children that used CPU during a quarter of a second (an idle decoder worker uses none). */
async function busyChildren(): Promise<number[]> {
  const before = new Map(children().map((c) => [c.pid, c.cpuTicks]));
  await new Promise((resolve) => setTimeout(resolve, 250));
  return children()
    .filter((c) => before.has(c.pid) && c.cpuTicks - before.get(c.pid)! > 2)
    .map((c) => c.pid);
}
