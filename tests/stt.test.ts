/**
 * POST /stt in process: the upload rules, the format probe on real audio, the response, the errors, the
 * temporary files, and the `openai` engine against the OpenAI stand-in. The engine is a recording fake
 * wherever the test is about the route alone.
 */
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../src/contract/errors.ts';
import { MAX_AUDIO_BYTES, sttResponse } from '../src/contract/stt.ts';
import type { SttRouteDeps } from '../src/routes/stt-route.ts';
import { AUDIO_FORMATS } from '../src/stt/engine.ts';
import { createOpenAIEngine } from '../src/stt/openai-engine.ts';
import { makeAudioFixtures, silentWav, SPEECH_VARIANTS, type AudioFixtures } from './fixtures/audio.ts';
import { deferred, startOpenAIStandIn, type OpenAIStandIn } from './fixtures/openai-stand-in.ts';
import { fakeEngine, sttApp } from './fixtures/stt-app.ts';

type App = Awaited<ReturnType<typeof sttApp>>;

let audio: AudioFixtures;
/** Where every app of this file keeps its uploads: it must be empty after each test. */
let tempDir: string;
const recorder = fakeEngine();
/** The route with the recording engine and SPEC's limit. */
let target: App;

beforeAll(async () => {
  audio = await makeAudioFixtures(await mkdtemp(join(tmpdir(), 'stt-audio-')));
  tempDir = await mkdtemp(join(tmpdir(), 'stt-uploads-'));
  target = await app({ engine: recorder.engine });
});
beforeEach(() => recorder.reset());
afterEach(async () => {
  expect(await readdir(tempDir), 'uploads left behind').toEqual([]);
});

function app(deps: Partial<SttRouteDeps> & Pick<SttRouteDeps, 'engine'>): Promise<App> {
  return sttApp({ maxBytes: MAX_AUDIO_BYTES, isDevelopment: false, tempDir, ...deps });
}

async function post(target: App, body: BodyInit, init: RequestInit = {}) {
  // A form goes as its bytes, as over the network: in process, the route stopping early would cancel
  // undici's form encoder itself, which then fails on its own (a client-side artifact of app.request).
  if (body instanceof FormData) {
    const encoded = new Response(body);
    init = { ...init, headers: { 'content-type': encoded.headers.get('content-type')! } };
    body = await encoded.arrayBuffer();
  }
  const response = await target.request('/stt', { method: 'POST', body, ...init });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

function file(bytes: Buffer | string, fileName: string) {
  return new File([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], fileName);
}

function audioForm(bytes: Buffer | string, fileName: string, fields: Record<string, string> = {}) {
  const form = new FormData();
  form.append('audio', file(bytes, fileName));
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  return form;
}

describe('accepted audio', () => {
  it.each(SPEECH_VARIANTS)('$name: answers the transcript and hands the engine the file, its format and duration', async (variant) => {
    recorder.answerWith({ transcript: 'what is the weather like in kyoto today', language: 'en' });
    const bytes = await audio.read(variant.file);

    const { status, body } = await post(target, audioForm(bytes, variant.file));

    expect(status).toBe(200);
    expect(sttResponse.parse(body)).toEqual(body);
    expect(body).toMatchObject({ transcript: 'what is the weather like in kyoto today', success: true, language: 'en', engine: 'local' });
    expect(body.durationSeconds).toBeCloseTo(audio.speechSeconds, 1);
    expect(Date.parse(body.timestamp)).not.toBeNaN();
    expect(recorder.calls).toHaveLength(1);
    expect(recorder.calls[0]!.audio).toMatchObject({ format: variant.format, fileName: variant.file, durationSeconds: body.durationSeconds });
    expect(recorder.calls[0]!.bytes.equals(bytes)).toBe(true);
  });

  it.each(SPEECH_VARIANTS)('$name: an engine that transcribes PCM gets it from the probe (decoded once), 16 kHz mono 16-bit', async (variant) => {
    const pcmEngine = fakeEngine({ usesPcm: true });
    const { status, body } = await post(await app({ engine: pcmEngine.engine }), audioForm(await audio.read(variant.file), variant.file));

    expect(status).toBe(200);
    const pcm = pcmEngine.calls[0]!.pcm!;
    expect(pcm.length / (16_000 * 2)).toBeCloseTo(body.durationSeconds, 1);
    // Speech, not silence: the loudest sample is well above the noise floor.
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
    expect(samples.reduce((loudest, sample) => Math.max(loudest, Math.abs(sample)), 0)).toBeGreaterThan(1000);
    // An engine that does not ask for PCM gets none (the probe decodes to nowhere).
    expect(recorder.calls).toHaveLength(0);
    await post(target, audioForm(await audio.read(variant.file), variant.file));
    expect(recorder.calls[0]!.audio.pcmPath).toBeUndefined();
  });

  it('decides the format by content, not by the file name', async () => {
    const { status } = await post(target, audioForm(await audio.read('memo.m4a'), 'recording.mp3'));

    expect(status).toBe(200);
    expect(recorder.calls[0]!.audio.format).toBe('m4a');
  });

  it('normalises the language to ISO 639-1 and passes it on, in either field order', async () => {
    const languageFirst = new FormData();
    languageFirst.append('language', 'pt_BR');
    languageFirst.append('audio', file(await audio.read('speech.wav'), 'speech.wav'));

    await post(target, audioForm(await audio.read('speech.wav'), 'speech.wav', { language: 'en-US' }));
    await post(target, languageFirst);
    await post(target, audioForm(await audio.read('speech.wav'), 'speech.wav'));

    expect(recorder.calls.map((call) => call.options.language)).toEqual(['en', 'pt', undefined]);
  });

  it('accepts a file of exactly the limit and refuses one byte more with 413', async () => {
    const maxBytes = 64 * 1024;
    const small = await app({ engine: recorder.engine, maxBytes });

    const atLimit = await post(small, audioForm(silentWav((maxBytes - 44) / 2), 'limit.wav'));
    const overLimit = await post(small, audioForm(Buffer.concat([silentWav((maxBytes - 44) / 2), Buffer.alloc(1)]), 'over.wav'));

    expect(atLimit.status).toBe(200);
    expect(overLimit).toMatchObject({ status: 413, body: { error: 'The audio file is larger than the 0.06 MB limit.', code: 'INVALID_REQUEST', details: { maxBytes } } });
    expect(recorder.calls).toHaveLength(1);
  });
});

describe('refused uploads: 400 INVALID_REQUEST naming the problem, nothing reaches the engine', () => {
  async function expectRefused(body: BodyInit, message: RegExp | string, init: RequestInit = {}) {
    const response = await post(target, body, init);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'INVALID_REQUEST', error: typeof message === 'string' ? message : expect.stringMatching(message) });
    expect(response.body).not.toHaveProperty('stack');
    expect(recorder.calls).toEqual([]);
    return response.body;
  }

  it('no file at all', async () => {
    const form = new FormData();
    form.append('language', 'en');
    await expectRefused(form, /^No audio file: send it as multipart\/form-data in field "audio"/);
  });

  it('the file in the wrong field', async () => {
    const form = new FormData();
    form.append('file', file(await audio.read('speech.wav'), 'speech.wav'));
    const body = await expectRefused(form, /Unexpected file in field "file".*field "audio"/);
    expect(body.details).toEqual({ field: 'file' });
  });

  it('the audio field as text instead of a file', async () => {
    const form = new FormData();
    form.append('audio', 'speech.wav');
    await expectRefused(form, /^Field "audio" must be a file, not text: send it as multipart/);
  });

  it('an empty file', async () => {
    await expectRefused(audioForm('', 'empty.wav'), 'The audio file is empty.');
  });

  it('two files', async () => {
    const form = audioForm(await audio.read('speech.wav'), 'one.wav');
    form.append('audio', file(await audio.read('speech.wav'), 'two.wav'));
    await expectRefused(form, 'More than one file: send exactly one, in field "audio".');
  });

  it('a text file named .mp3, listing the accepted formats', async () => {
    const body = await expectRefused(
      audioForm(await audio.read('notes.mp3'), 'notes.mp3'),
      'The file is not audio in an accepted format (MP3, WAV, M4A, FLAC, OGG, WEBM): its content is not audio in any of these formats.',
    );
    expect(body.details.acceptedFormats).toEqual([...AUDIO_FORMATS]);
  });

  it('a truncated MP3', async () => {
    await expectRefused(audioForm(await audio.read('truncated.mp3'), 'truncated.mp3'), /accepted format .*: it is truncated/);
  });

  it('a video without audio', async () => {
    await expectRefused(audioForm(await audio.read('silent-film.mp4'), 'film.m4a'), /accepted format .*: it contains no audio stream\.$/);
  });

  it('a body that is not multipart', async () => {
    await expectRefused(JSON.stringify({ audio: 'aGVsbG8=' }), /^No audio file: .*The request's content type was "application\/json"\.$/, {
      headers: { 'content-type': 'application/json' },
    });
  });

  it('a multipart body cut off in the middle', async () => {
    const boundary = 'cut-off';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\n\r\nRIFF`;
    await expectRefused(body, /^Malformed multipart\/form-data body/, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  });

  it('a language that is not BCP 47 or ISO 639-1, or has no two-letter code', async () => {
    await expectRefused(audioForm(await audio.read('speech.wav'), 'speech.wav', { language: 'klingon!' }), /^Invalid form fields: language: "klingon!" is not/);
    await expectRefused(audioForm(await audio.read('speech.wav'), 'speech.wav', { language: 'fil' }), /^Invalid form fields: language: "fil" is not/);
  });

  it('a field the route does not take', async () => {
    await expectRefused(audioForm(await audio.read('speech.wav'), 'speech.wav', { model: 'gpt-4o' }), 'Invalid form fields: unrecognized field(s): model');
  });
});

describe('an upload over the limit', () => {
  /** A multipart body whose file part is `fileBytes` of fresh zeros, made only as fast as it is read. */
  function streamedUpload(fileBytes: number, chunkBytes = 16 * 1024) {
    const boundary = 'streamed-upload';
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.wav"\r\n\r\n`);
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    let pulled = 0;
    let fileSent = 0;
    const body = new ReadableStream<Uint8Array>(
      {
        pull(controller) {
          const chunk = pulled === 0 ? head : fileSent < fileBytes ? Buffer.alloc(Math.min(chunkBytes, fileBytes - fileSent)) : tail;
          if (chunk !== head && chunk !== tail) fileSent += chunk.length;
          pulled += chunk.length;
          controller.enqueue(chunk);
          if (chunk === tail) controller.close();
        },
      },
      { highWaterMark: 0 },
    );
    return { body, contentType: `multipart/form-data; boundary=${boundary}`, pulledBytes: () => pulled };
  }

  it('is refused with 413 as soon as the limit is passed, without reading the rest of the body', async () => {
    const maxBytes = 256 * 1024;
    const upload = streamedUpload(16 * maxBytes);

    const { status, body } = await post(await app({ engine: recorder.engine, maxBytes }), upload.body, {
      headers: { 'content-type': upload.contentType },
      duplex: 'half',
    } as RequestInit);

    expect(status).toBe(413);
    expect(body).toMatchObject({ code: 'INVALID_REQUEST', details: { maxBytes } });
    expect(upload.pulledBytes()).toBeGreaterThan(maxBytes);
    expect(upload.pulledBytes()).toBeLessThan(2 * maxBytes);
    expect(recorder.calls).toEqual([]);
  });

  it('is refused before any of it is read when its declared length is over the limit', async () => {
    const upload = streamedUpload(2 * MAX_AUDIO_BYTES);

    const { status } = await post(target, upload.body, {
      headers: { 'content-type': upload.contentType, 'content-length': String(2 * MAX_AUDIO_BYTES + 200) },
      duplex: 'half',
    } as RequestInit);

    expect(status).toBe(413);
    // At most the stream's first chunk (the part's headers): no file data.
    expect(upload.pulledBytes()).toBeLessThan(1024);
  });
});

describe('engine failures', () => {
  it('carry their status and code, with Retry-After for a rate limit', async () => {
    recorder.answerWith(new ApiError(429, 'RATE_LIMITED', 'Slow down.', { retryAfterSeconds: 12 }));

    const response = await post(target, audioForm(await audio.read('speech.wav'), 'speech.wav'));

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('12');
    expect(response.body).toEqual({ error: 'Slow down.', code: 'RATE_LIMITED', details: { retryAfterSeconds: 12 } });
  });

  it('are 500 AUDIO_PROCESSING_ERROR without their own message, with a stack in development only', async () => {
    recorder.answerWith(new Error('segfault in /opt/secret/decoder'));
    const form = () => audioForm(silentWav(), 'speech.wav');

    const production = await post(target, form());
    const development = await post(await app({ engine: recorder.engine, isDevelopment: true }), form());

    expect(production).toMatchObject({ status: 500, body: { error: 'Speech-to-text failed.', code: 'AUDIO_PROCESSING_ERROR', details: {} } });
    expect(production.body).not.toHaveProperty('stack');
    expect(development.body.stack).toContain('segfault');
  });
});

describe('the OpenAPI document', () => {
  it('lists POST /stt with its multipart request and its responses', async () => {
    const document = await (await target.request('/api/openapi.json')).json();

    const operation = document.paths['/stt'].post;
    const request = operation.requestBody.content['multipart/form-data'].schema;
    expect(request.required).toEqual(['audio']);
    expect(request.properties.audio).toMatchObject({ type: 'string', format: 'binary' });
    expect(request.properties.language).toMatchObject({ type: 'string' });
    const success = operation.responses['200'].content['application/json'].schema;
    expect(Object.keys(success.properties)).toEqual(['transcript', 'success', 'timestamp', 'processingTime', 'language', 'durationSeconds', 'engine']);
    // The route's own statuses, then the SPEC error body for any other client or server error (auth, rate limits).
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '413', '429', '500', '4XX', '5XX']);
    expect(Object.keys(operation.responses['400'].content['application/json'].schema.properties)).toEqual(['error', 'code', 'details', 'stack']);
  });
});

describe('the openai engine, against the OpenAI stand-in', () => {
  const API_KEY = 'sk-test-secret-key';
  let standIn: OpenAIStandIn;
  let openai: App;

  beforeAll(async () => {
    standIn = await startOpenAIStandIn();
    openai = await openaiApp(standIn.baseURL);
  });
  beforeEach(() => standIn.reset());
  afterAll(() => standIn.close());

  function openaiApp(baseURL: string) {
    return app({ engine: createOpenAIEngine({ apiKey: API_KEY, baseURL, model: 'whisper-1', maxRetries: 0 }) });
  }

  it.each(SPEECH_VARIANTS)('$name: the provider receives the file, the model and the language; its text is the transcript', async (variant) => {
    standIn.script({ text: ' Quel temps fait-il à Kyoto ? ' });
    const bytes = await audio.read(variant.file);

    const { status, body } = await post(openai, audioForm(bytes, variant.file, { language: 'fr-FR' }));

    expect(status).toBe(200);
    expect(body).toMatchObject({ transcript: 'Quel temps fait-il à Kyoto ?', success: true, language: 'fr', engine: 'openai' });
    const [request] = standIn.requests;
    expect(request!.body).toMatchObject({ model: 'whisper-1', language: 'fr' });
    expect(request!.file!.bytes.equals(bytes)).toBe(true);
    // OpenAI reads the format from the file name's extension.
    expect(request!.file!.name).toBe(`audio.${variant.format}`);
    expect(request!.headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('reports the language the provider detected when none was asked for', async () => {
    standIn.script({ text: 'Wie ist das Wetter?', language: 'de' });

    const { body } = await post(openai, audioForm(await audio.read('memo.m4a'), 'memo.m4a'));

    expect(body).toMatchObject({ transcript: 'Wie ist das Wetter?', language: 'de' });
    expect(standIn.requests[0]!.body).not.toHaveProperty('language');
  });

  it('sends nothing to the provider for a refused upload', async () => {
    await post(openai, audioForm(await audio.read('notes.mp3'), 'notes.mp3'));

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

    const response = await post(openai, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response).toMatchObject({ status, body: { error, code, details: { upstreamStatus: upstream } } });
    const text = JSON.stringify(response.body);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain('127.0.0.1');
    expect(text).not.toContain('Incorrect');
  });

  it('provider 429 → 429 RATE_LIMITED with the provider\'s Retry-After', async () => {
    standIn.script({ error: { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '7' } } });

    const response = await post(openai, audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.body).toEqual({
      error: 'The speech-to-text provider is rate limiting requests; try again shortly.',
      code: 'RATE_LIMITED',
      details: { upstreamStatus: 429, retryAfterSeconds: 7 },
    });
  });

  it('an unreachable provider → 500 AUDIO_PROCESSING_ERROR', async () => {
    const response = await post(await openaiApp('http://127.0.0.1:9/v1'), audioForm(await audio.read('speech.mp3'), 'speech.mp3'));

    expect(response).toMatchObject({ status: 500, body: { error: 'The speech-to-text provider could not be reached.', code: 'AUDIO_PROCESSING_ERROR', details: {} } });
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
    await expect.poll(() => readdir(tempDir)).toEqual([]);
  });
});
