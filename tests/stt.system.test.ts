/**
 * POST /stt in process on real audio: the format probe (Debian's ffprobe and ffmpeg) on speech made by flite in
 * every accepted format, the response, the temporary files, engine failures, and the `openai` engine against the
 * OpenAI stand-in. The engine is a recording fake wherever the test is about the route alone. The upload rules
 * that need no audio are in stt.test.ts.
 */
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError, retryAfterHeader } from '../src/contract/errors.ts';
import { sttResponse } from '../src/contract/stt.ts';
import type { SttEngine } from '../src/stt/engine.ts';
import { createOpenAIEngine, MAX_ANSWER_BYTES } from '../src/stt/openai-engine.ts';
import { children } from './fixtures/child-processes.ts';
import { audioFixtures, handedToEngine, silentWav, SPEECH_VARIANTS, type AudioFixtures } from './fixtures/audio.ts';
import { deferred, startOpenAIStandIn, type OpenAIStandIn } from './fixtures/openai-stand-in.ts';
import { audioFile, audioForm, fakeEngine, postStt, sttRouteUnderTest, uploadFolders, type SttApp } from './fixtures/stt-app.ts';

const run = promisify(execFile);
const route = sttRouteUnderTest();
let audio: AudioFixtures;

beforeAll(async () => {
  audio = await audioFixtures();
});

describe('accepted audio', () => {
  it.each(SPEECH_VARIANTS)('$name: answers the transcript and hands the engine the file, its format and duration', async (variant) => {
    route.recorder.answerWith({ transcript: 'what is the weather like in kyoto today', language: 'en' });
    const bytes = await audio.read(variant.file);

    const { status, body } = await postStt(route.target, audioForm(bytes, variant.file));

    expect(status).toBe(200);
    expect(sttResponse.parse(body)).toEqual(body);
    expect(body).toMatchObject({ transcript: 'what is the weather like in kyoto today', success: true, language: 'en', engine: 'local' });
    expect(body.durationSeconds).toBeCloseTo(audio.speechSeconds, 1);
    expect(Date.parse(body.timestamp)).not.toBeNaN();
    expect(route.recorder.calls).toHaveLength(1);
    expect(route.recorder.calls[0]!.audio).toMatchObject({ format: variant.format, fileName: variant.file, durationSeconds: body.durationSeconds });
    expect(route.recorder.calls[0]!.bytes.equals(await audio.read(handedToEngine(variant)))).toBe(true);
  });

  // One app for all variants, with its own recording engine.
  const pcmEngine = fakeEngine({ usesPcm: true });
  let pcmApp: Promise<SttApp> | undefined;

  it.each(SPEECH_VARIANTS)('$name: an engine that transcribes PCM gets it from the probe (decoded once), 16 kHz mono 16-bit', async (variant) => {
    pcmEngine.reset();
    pcmApp ??= route.app({ engine: pcmEngine.engine });
    const { status, body } = await postStt(await pcmApp, audioForm(await audio.read(variant.file), variant.file));

    expect(status).toBe(200);
    const pcm = pcmEngine.calls[0]!.pcm!;
    expect(pcm.length / (16_000 * 2)).toBeCloseTo(body.durationSeconds, 1);
    // Speech, not silence: the loudest sample is well above the noise floor.
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
    expect(samples.reduce((loudest, sample) => Math.max(loudest, Math.abs(sample)), 0)).toBeGreaterThan(1000);
    // An engine that does not ask for PCM gets none (the probe decodes to nowhere).
    expect(route.recorder.calls).toHaveLength(0);
    await postStt(route.target, audioForm(await audio.read(variant.file), variant.file));
    expect(route.recorder.calls[0]!.audio.pcmPath).toBeUndefined();
  });

  it("takes an OGG whose last page is not flagged as the stream's end, as Android's recorder writes it", async () => {
    const { status, body } = await postStt(route.target, audioForm(await audio.read('no-end-flag.opus.ogg'), 'voice-note.ogg'));
    expect(status).toBe(200);
    expect(body.durationSeconds).toBeCloseTo(audio.speechSeconds, 1);
  });

  it('takes a chained OGG (two recordings one after the other) whole', async () => {
    const { status, body } = await postStt(route.target, audioForm(await audio.read('chained.ogg'), 'two-notes.ogg'));
    expect(status).toBe(200);
    expect(body.durationSeconds).toBeCloseTo(2 * audio.speechSeconds, 1);
  });

  it('takes a WAV sox wrote to a pipe (its own "length unknown" marks), as the file it is', async () => {
    const wav = Buffer.from(await audio.read('speech.wav'));
    const dataAt = wav.indexOf('data');
    wav.writeUInt32LE(0x7ffff024, 4);
    wav.writeUInt32LE(0x7ffff000, dataAt + 4);
    const { status, body } = await postStt(route.target, audioForm(wav, 'piped.wav'));
    expect(status).toBe(200);
    expect(body.durationSeconds).toBeCloseTo(audio.speechSeconds, 1);
    expect(route.recorder.calls[0]!.bytes.equals(await audio.read('speech.wav'))).toBe(true);
  });

  it('decides the format by content, not by the file name', async () => {
    const { status } = await postStt(route.target, audioForm(await audio.read('memo.m4a'), 'recording.mp3'));

    expect(status).toBe(200);
    expect(route.recorder.calls[0]!.audio.format).toBe('m4a');
  });

  it('normalises the language to ISO 639-1 and passes it on, in either field order', async () => {
    const languageFirst = new FormData();
    languageFirst.append('language', 'pt_BR');
    languageFirst.append('audio', audioFile(await audio.read('speech.wav'), 'speech.wav'));

    await postStt(route.target, audioForm(await audio.read('speech.wav'), 'speech.wav', { language: 'en-US' }));
    await postStt(route.target, languageFirst);
    await postStt(route.target, audioForm(await audio.read('speech.wav'), 'speech.wav'));

    expect(route.recorder.calls.map((call) => call.options.language)).toEqual(['en', 'pt', undefined]);
  });

  it('takes an empty language, what a form sends for "detect", as none', async () => {
    const { status } = await postStt(route.target, audioForm(await audio.read('speech.wav'), 'speech.wav', { language: '' }));
    await postStt(route.target, audioForm(await audio.read('speech.wav'), 'speech.wav', { language: ' ' }));

    expect(status).toBe(200);
    expect(route.recorder.calls.map((call) => call.options.language)).toEqual([undefined, undefined]);
  });

  it('keeps answering after a temporary-folder cleaner removed the scratch folder', async () => {
    const before = new Set(readdirSync(route.tempDir));
    const cleaned = await route.app({ engine: route.recorder.engine });
    const [scratch] = readdirSync(route.tempDir).filter((name) => !before.has(name));
    rmSync(join(route.tempDir, scratch!), { recursive: true });

    const { status, body } = await postStt(cleaned, audioForm(await audio.read('speech.wav'), 'speech.wav'));
    expect([status, body.transcript]).toEqual([200, 'hello there']);
  });

  it('answers once a temporary folder that could not be written as the service started can be', async () => {
    const unwritable = join(mkdtempSync(join(tmpdir(), 'stt-later-')), 'tmp');
    writeFileSync(unwritable, 'a file where the folder should be');
    const app = await route.app({ engine: route.recorder.engine, tempDir: unwritable });
    expect((await postStt(app, audioForm(await audio.read('speech.wav'), 'speech.wav'))).status).toBe(500);

    rmSync(unwritable);
    // As a shared temporary folder is: anyone may write in it, no one remove another's files.
    mkdirSync(unwritable);
    chmodSync(unwritable, 0o1777);
    const { status, body } = await postStt(app, audioForm(await audio.read('speech.wav'), 'speech.wav'));
    expect([status, body.transcript]).toEqual([200, 'hello there']);
  });

  it('accepts a file of exactly the limit and refuses one byte more with 413', async () => {
    const maxBytes = 64 * 1024;
    const small = await route.app({ engine: route.recorder.engine, maxBytes });

    const atLimit = await postStt(small, audioForm(silentWav((maxBytes - 44) / 2), 'limit.wav'));
    const overLimit = await postStt(small, audioForm(Buffer.concat([silentWav((maxBytes - 44) / 2), Buffer.alloc(1)]), 'over.wav'));

    expect(atLimit.status).toBe(200);
    expect(overLimit).toMatchObject({ status: 413, body: { error: 'The audio file is larger than the 0.06 MiB (65,536 bytes) limit.', code: 'INVALID_REQUEST', details: { maxBytes } } });
    expect(route.recorder.calls).toHaveLength(1);
  });
});

describe('refused uploads: 400 INVALID_REQUEST naming the problem, nothing reaches the engine', () => {
  it('a truncated MP3', async () => {
    await route.expectRefused(audioForm(await audio.read('truncated.mp3'), 'truncated.mp3'), /accepted format .*: it is truncated/);
  });

  // ffmpeg decodes these without an error, as shorter audio (the Ogg pages tell, or the FLAC header's sample count),
  // or notices only when asked (a FLAC frame's checksum).
  it.each([
    { name: 'an OGG (Opus) cut mid-page', file: 'truncated.opus.ogg', reason: 'it is truncated (its last Ogg page is cut off)' },
    { name: 'an OGG (Opus) with a damaged page header', file: 'damaged.opus.ogg', reason: 'it is damaged (it is not a sequence of Ogg pages)' },
    // Overwritten frames are skipped without a word; a few flipped bits fail the frame's checksum.
    { name: 'a FLAC damaged in the middle', file: 'damaged.flac', reason: 'it is damaged (part of its audio cannot be decoded)' },
    { name: 'a FLAC with bits flipped inside a frame', file: 'bit-flipped.flac', reason: 'it is damaged or truncated (its audio cannot be decoded to the end)' },
  ])('$name', async ({ file, reason }) => {
    const body = await route.expectRefused(audioForm(await audio.read(file), file), `The file is not audio in an accepted format (MP3, WAV, M4A, FLAC, OGG, WEBM): ${reason}.`);
    expect(body.details.reason).toBe(reason);
  });

  it('FLAC in an Ogg container, naming both', async () => {
    const { stdout } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', audio.path('flite.wav'), '-c:a', 'flac', '-f', 'ogg', 'pipe:1'], { encoding: 'buffer' });
    await route.expectRefused(audioForm(stdout, 'speech.ogg'), /accepted format .*: it holds flac audio in an Ogg container\.$/);
  });

  it('raw AAC (ADTS), named by its own container with the right article', async () => {
    const { stdout } = await run('ffmpeg', ['-nostdin', '-v', 'error', '-i', audio.path('flite.wav'), '-c:a', 'aac', '-f', 'adts', 'pipe:1'], { encoding: 'buffer' });
    await route.expectRefused(audioForm(stdout, 'speech.aac'), /accepted format .*: it holds aac audio in an aac container\.$/);
  });

  it('a video without audio', async () => {
    await route.expectRefused(audioForm(await audio.read('silent-film.mp4'), 'film.m4a'), /accepted format .*: it contains no audio stream\.$/);
  });
});

describe('audio longer than STT_MAX_AUDIO_SECONDS', () => {
  const refusal = { code: 'INVALID_REQUEST', error: 'The audio is longer than the 2 s limit; send a shorter recording, or split it.', details: { maxSeconds: 2 } };

  // flite's sentence lasts about 2.4 s.
  it.each(['speech.opus.ogg', 'speech.wav', 'speech.webm', 'speech.mp3'])('%s over a 2 s limit: 400 naming the limit, nothing reaches the engine', async (file) => {
    const pcmEngine = fakeEngine({ usesPcm: true });
    const limited = await route.app({ engine: pcmEngine.engine, maxSeconds: 2 });

    const response = await postStt(limited, audioForm(await audio.read(file), file));

    expect(response).toMatchObject({ status: 400, body: refusal });
    expect(pcmEngine.calls).toEqual([]);
  });

  it('a WebM written to a pipe, which states no length, is decoded no further than the limit', async () => {
    const long = await minuteOfTone();
    const pcmEngine = fakeEngine({ usesPcm: true });
    const limited = await route.app({ engine: pcmEngine.engine, maxSeconds: 2 });
    let largestPcm = 0;
    const watching = setInterval(() => largestPcm = Math.max(largestPcm, pcmBytesIn(route.tempDir)), 5);

    const response = await postStt(limited, audioForm(long, 'tone.webm')).finally(() => clearInterval(watching));

    expect(response).toMatchObject({ status: 400, body: refusal });
    expect(largestPcm).toBeLessThanOrEqual(16_000 * 2 * 3);
  });

  it('takes audio up to the limit', async () => {
    const response = await postStt(await route.app({ engine: route.recorder.engine, maxSeconds: 3 }), audioForm(await audio.read('speech.webm'), 'speech.webm'));
    expect(response.status).toBe(200);
  });

  // Their encoder's priming and padding count in the length ffprobe states and in the decoded one: 3.02-3.08 s here.
  it.each([
    ['MP3', ['-c:a', 'libmp3lame', '-f', 'mp3'], 'tone.mp3'],
    ['AAC in M4A', ['-c:a', 'aac', '-f', 'ipod'], 'tone.m4a'],
    ['Opus in OGG', ['-c:a', 'libopus', '-f', 'ogg'], 'tone.ogg'],
    ['Opus in WebM', ['-c:a', 'libopus', '-f', 'webm'], 'tone.webm'],
  ])('takes %s of exactly the limit', async (_name, options, file) => {
    const path = join(audio.dir, file);
    await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=3', ...options, path]);
    const response = await postStt(await route.app({ engine: route.recorder.engine, maxSeconds: 3 }), audioForm(await audio.read(file), file));
    expect(response.status).toBe(200);
  });
});

/** A minute of tone as a WebM written to a pipe (no length stated): 1.9 MB of PCM decoded. Made once. */
let tone: Promise<Buffer> | undefined;
function minuteOfTone(): Promise<Buffer> {
  const args = ['-nostdin', '-v', 'error', '-f', 'lavfi', '-i', 'sine=frequency=300:duration=60', '-c:a', 'libopus', '-b:a', '6k', '-f', 'webm', 'pipe:1'];
  tone ??= run('ffmpeg', args, { encoding: 'buffer' }).then(({ stdout }) => stdout);
  return tone;
}

describe('uploads arriving together', () => {
  it('are decoded by at most one ffmpeg or ffprobe per core at a time, and all answered', async () => {
    const minute = await minuteOfTone();
    const decoders = () => children().filter((child) => /^ff(mpeg|probe)$/.test(child.command)).length;
    let most = 0;
    const watching = setInterval(() => (most = Math.max(most, decoders())), 2);
    const pcmApp = await route.app({ engine: fakeEngine({ usesPcm: true }).engine });

    // More uploads than cores, whatever the machine: without a limit, more decoders than cores would run.
    const uploads = availableParallelism() + 3;
    const answers = await Promise.all(Array.from({ length: uploads }, () => postStt(pcmApp, audioForm(minute, 'tone.webm')))).finally(() =>
      clearInterval(watching),
    );

    expect(answers.map((answer) => answer.status)).toEqual(Array(uploads).fill(200));
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(availableParallelism());
  });
});

/** The bytes of decoded PCM in the uploads' folders under `dir` now. */
function pcmBytesIn(dir: string): number {
  let bytes = 0;
  for (const upload of uploadFolders(dir)) {
    try {
      bytes += statSync(join(upload, 'audio.pcm')).size;
    } catch {
      // not decoding yet, or done
    }
  }
  return bytes;
}

describe('engine failures', () => {
  it('carry their status and code, with Retry-After for a rate limit', async () => {
    route.recorder.answerWith(new ApiError(429, 'RATE_LIMITED', 'Slow down.', { retryAfterSeconds: 12 }, undefined, retryAfterHeader(12)));

    const response = await postStt(route.target, audioForm(await audio.read('speech.wav'), 'speech.wav'));

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('12');
    expect(response.body).toEqual({ error: 'Slow down.', code: 'RATE_LIMITED', details: { retryAfterSeconds: 12 } });
  });

  it('are 500 AUDIO_PROCESSING_ERROR without their own message, with a stack in development only', async () => {
    route.recorder.answerWith(new Error('segfault in /opt/secret/decoder'));
    const form = () => audioForm(silentWav(), 'speech.wav');

    const production = await postStt(route.target, form());
    const development = await postStt(await route.app({ engine: route.recorder.engine, isDevelopment: true }), form());

    expect(production).toMatchObject({ status: 500, body: { error: 'Speech-to-text failed.', code: 'AUDIO_PROCESSING_ERROR', details: {} } });
    expect(production.body).not.toHaveProperty('stack');
    expect(development.body.stack).toContain('segfault');
  });
});

/** An engine that never finishes on its own: it waits until its signal stops it, and says whether it was. */
function stalledEngine() {
  const stopped = deferred();
  const engine: SttEngine = {
    name: 'local',
    transcribe: (_audio, { signal }) =>
      new Promise((_resolve, reject) =>
        signal!.addEventListener('abort', () => {
          stopped.resolve();
          reject(signal!.reason);
        }),
      ),
    readiness: async () => ({ ok: true }),
    close: async () => {},
  };
  return { engine, stopped: stopped.promise };
}

describe('a transcription that outgrows STT_TIMEOUT_MS', () => {
  it('is stopped and answered 504 AUDIO_PROCESSING_ERROR naming the deadline, its upload deleted', async () => {
    const stalled = stalledEngine();
    const started = Date.now();

    // Long enough for the probe to hand the upload to the engine on a busy machine.
    const response = await postStt(await route.app({ engine: stalled.engine, timeoutMs: 3000 }), audioForm(silentWav(), 'memo.wav'));

    expect(response).toMatchObject({
      status: 504,
      body: { error: 'The transcription took longer than 3000 ms; it was stopped.', code: 'AUDIO_PROCESSING_ERROR', details: { timeout: 'transcription', timeoutMs: 3000 } },
    });
    expect(Date.now() - started).toBeLessThan(8000);
    await stalled.stopped;
  });

  // Its deadline ran on for STT_TIMEOUT_MS (30 min by default) after the answer, holding the request's signals.
  it('stops once the transcription is answered', async () => {
    const response = await postStt(await route.app({ engine: route.recorder.engine, timeoutMs: 2000 }), audioForm(silentWav(), 'memo.wav'));
    expect(response.status).toBe(200);
    const { signal } = route.recorder.calls[0]!.options;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(signal!.aborted).toBe(false);
  });
});

describe('the openai engine, against the OpenAI stand-in', () => {
  const API_KEY = 'sk-test-secret-key';
  let standIn: OpenAIStandIn;
  let openai: SttApp;

  beforeAll(async () => {
    standIn = await startOpenAIStandIn();
    openai = await openaiApp(standIn.baseURL);
  });
  beforeEach(() => standIn.reset());
  afterAll(() => standIn.close());

  function openaiApp(baseURL: string, model = 'whisper-1') {
    return route.app({ engine: createOpenAIEngine({ apiKey: API_KEY, baseURL, model, maxRetries: 0 }) });
  }

  it.each(SPEECH_VARIANTS)('$name: the provider receives the file, the model and the language; its text is the transcript', async (variant) => {
    standIn.script({ text: ' Quel temps fait-il à Kyoto ? ' });
    const bytes = await audio.read(variant.file);

    const { status, body } = await postStt(openai, audioForm(bytes, variant.file, { language: 'fr-FR' }));

    expect(status).toBe(200);
    expect(body).toMatchObject({ transcript: 'Quel temps fait-il à Kyoto ?', success: true, language: 'fr', engine: 'openai' });
    const [request] = standIn.requests;
    expect(request!.body).toMatchObject({ model: 'whisper-1', language: 'fr' });
    expect(request!.file!.bytes.equals(await audio.read(handedToEngine(variant)))).toBe(true);
    // OpenAI reads the format from the file name's extension.
    expect(request!.file!.name).toBe(`audio.${variant.format}`);
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  // The stand-in names the language in `verbose_json` only, as Whisper does.
  it.each([
    { model: 'whisper-1', responseFormat: 'verbose_json', language: 'de' },
    // A self-hosted Whisper server's model, unknown to the AI SDK.
    { model: 'Systran/faster-whisper-small', responseFormat: 'verbose_json', language: 'de' },
    // OpenAI refuses verbose_json for it, and plain json names no language: SPEC's default (the README says so).
    { model: 'gpt-4o-mini-transcribe', responseFormat: undefined, language: 'en' },
  ])('$model, asked for no language: response_format $responseFormat, language $language', async ({ model, responseFormat, language }) => {
    standIn.script({ text: 'Wie ist das Wetter?', language: 'de' });

    const { body } = await postStt(await openaiApp(standIn.baseURL, model), audioForm(await audio.read('memo.m4a'), 'memo.m4a'));

    expect(body).toMatchObject({ transcript: 'Wie ist das Wetter?', language });
    const sent = standIn.requests[0]!.body;
    expect(sent).toMatchObject({ model });
    expect(sent.response_format).toBe(responseFormat);
    expect(sent).not.toHaveProperty('language');
  });

  // whisper-1 names them in English; the AI SDK knows 57 of those names, and answered the others as not detected.
  it.each(['pa', 'te', 'gu'])('whisper-1 detecting a language the AI SDK does not name (%s): that language', async (language) => {
    standIn.script({ text: 'ਮੌਸਮ ਕਿਹੋ ਜਿਹਾ ਹੈ?', language });

    const { body } = await postStt(openai, audioForm(await audio.read('memo.m4a'), 'memo.m4a'));

    expect(body).toMatchObject({ language });
  });

  it('sends nothing to the provider for a refused upload', async () => {
    await postStt(openai, audioForm(await audio.read('notes.mp3'), 'notes.mp3'));

    expect(standIn.requests).toEqual([]);
  });

  const failures = [
    { upstream: 401, status: 500, code: 'AUDIO_PROCESSING_ERROR', error: 'The speech-to-text provider refused the API key: check STT_API_KEY (or OPENAI_API_KEY).' },
    { upstream: 403, status: 500, code: 'AUDIO_PROCESSING_ERROR', error: 'The speech-to-text provider refused the API key: check STT_API_KEY (or OPENAI_API_KEY).' },
    { upstream: 400, status: 400, code: 'INVALID_REQUEST', error: 'The speech-to-text provider could not use this audio file.' },
    { upstream: 500, status: 500, code: 'AUDIO_PROCESSING_ERROR', error: 'The speech-to-text provider failed (upstream status 500).' },
  ];

  it.each(failures)('provider $upstream → $status $code, without the key, the provider URL or its message', async ({ upstream, status, code, error }) => {
    standIn.script({ error: { status: upstream, message: `Incorrect API key provided: ${API_KEY} at ${standIn.baseURL}` } });

    const response = await postStt(openai, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response).toMatchObject({ status, body: { error, code, details: { upstreamStatus: upstream } } });
    const text = JSON.stringify(response.body);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('Incorrect');
  });

  it('provider 429 → 429 RATE_LIMITED with the provider\'s Retry-After', async () => {
    standIn.script({ error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '7' } } });

    const response = await postStt(openai, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.body).toEqual({
      error: 'The speech-to-text provider is rate limiting requests; try again shortly.',
      code: 'RATE_LIMITED',
      details: { upstreamStatus: 429, retryAfterSeconds: 7 },
    });
  });

  // As for the language model: retried only when the provider asks for a short wait, else passed on at once.
  it("retries a provider 429 that asks for a short wait, and passes one that asks for more than 3 s on at once", async () => {
    const retrying = await route.app({ engine: createOpenAIEngine({ apiKey: API_KEY, baseURL: standIn.baseURL, model: 'whisper-1', maxRetries: 2 }) });
    standIn.script({ error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after-ms': '50' } } }, { text: 'Made it.' });
    const retried = await postStt(retrying, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));
    expect([retried.status, retried.body.transcript, standIn.requests.length]).toEqual([200, 'Made it.', 2]);

    standIn.reset();
    standIn.script({ error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '7' } } });
    const passedOn = await postStt(retrying, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));
    expect([passedOn.status, passedOn.headers.get('retry-after'), standIn.requests.length]).toEqual([429, '7', 1]);
  });

  it('a provider whose 200 holds no transcription → 500 AUDIO_PROCESSING_ERROR saying so', async () => {
    standIn.script({ error: { status: 200, message: 'not a transcription' } });

    const response = await postStt(openai, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response).toMatchObject({
      status: 500,
      body: { error: "The speech-to-text provider's answer could not be read as a transcription.", code: 'AUDIO_PROCESSING_ERROR', details: { upstreamStatus: 200 } },
    });
  });

  it('a provider answering more than MAX_ANSWER_BYTES → 500 AUDIO_PROCESSING_ERROR, the rest unread', async () => {
    standIn.script({ text: 'a'.repeat(MAX_ANSWER_BYTES + 1) });

    const response = await postStt(openai, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response).toMatchObject({
      status: 500,
      body: { error: "The speech-to-text provider's answer was over 16 MiB, far more than a transcript; it was not read.", code: 'AUDIO_PROCESSING_ERROR', details: {} },
    });
  });

  it('an unreachable provider → 500 AUDIO_PROCESSING_ERROR', async () => {
    const response = await postStt(await openaiApp('http://127.0.0.1:9/v1'), audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response).toMatchObject({ status: 500, body: { error: 'The speech-to-text provider could not be reached.', code: 'AUDIO_PROCESSING_ERROR', details: {} } });
  });

  it('a provider that never answers: 504 AUDIO_PROCESSING_ERROR at STT_TIMEOUT_MS, its request aborted', async () => {
    standIn.script({ text: ['never sent'], hang: true });
    // Long enough for the probe to hand the upload to the provider on a busy machine (it took over 800 ms in one CI run).
    const hanging = await route.app({ engine: createOpenAIEngine({ apiKey: API_KEY, baseURL: standIn.baseURL, model: 'whisper-1', maxRetries: 0 }), timeoutMs: 3000 });

    const response = await postStt(hanging, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response).toMatchObject({ status: 504, body: { code: 'AUDIO_PROCESSING_ERROR', details: { timeout: 'transcription', timeoutMs: 3000 } } });
    expect(standIn.requests).toHaveLength(1);
    await standIn.requests[0]!.aborted;
    expect(standIn.requests[0]!.wasAborted).toBe(true);
  });

  it('stops the provider request when the client hangs up, and deletes the upload', async () => {
    const received = deferred();
    standIn.beforeReply = () => received.resolve();
    standIn.script({ text: ['never sent'], hang: true });
    const client = new AbortController();

    const answered = Promise.resolve(openai.request('/stt', { method: 'POST', body: audioForm(await audio.read('speech.mp3'), 'speech.mp3'), signal: client.signal }));
    await received.promise;
    client.abort();
    await answered.catch(() => {});

    await standIn.requests[0]!.aborted;
    expect(standIn.requests[0]!.wasAborted).toBe(true);
    await expect.poll(() => uploadFolders(route.tempDir)).toEqual([]);
  });
});
