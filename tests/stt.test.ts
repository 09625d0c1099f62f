/**
 * POST /stt in process, up to where the route reads the audio: the upload rules that refuse a request from its
 * form alone, the size limit, the OpenAPI document. What the route does with real audio (the format probe runs
 * ffprobe and ffmpeg), the response and the engines are in stt.system.test.ts.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_AUDIO_BYTES } from '../src/contract/stt.ts';
import { AUDIO_FORMATS } from '../src/contract/stt.ts';
import { silentWav, TEXT_NAMED_MP3 } from './fixtures/audio.ts';
import { audioFile, audioForm, postStt, sttRouteUnderTest } from './fixtures/stt-app.ts';

const route = sttRouteUnderTest();

describe('refused uploads: 400 INVALID_REQUEST naming the problem, nothing reaches the engine', () => {
  it('no file at all', async () => {
    const form = new FormData();
    form.append('language', 'en');
    await route.expectRefused(form, /^No audio file: send it as multipart\/form-data in field "audio"/);
  });

  it('the file in the wrong field', async () => {
    const form = new FormData();
    form.append('file', audioFile(silentWav(), 'speech.wav'));
    const body = await route.expectRefused(form, /Unexpected file in field "file".*field "audio"/);
    expect(body.details).toEqual({ field: 'file' });
  });

  it('the audio field as text instead of a file', async () => {
    const form = new FormData();
    form.append('audio', 'speech.wav');
    await route.expectRefused(form, /^Field "audio" must be a file, not text: send it as multipart/);
  });

  it('an empty file', async () => {
    await route.expectRefused(audioForm('', 'empty.wav'), 'The audio file is empty.');
  });

  it('two files', async () => {
    const form = audioForm(silentWav(), 'one.wav');
    form.append('audio', audioFile(silentWav(), 'two.wav'));
    await route.expectRefused(form, 'More than one file: send exactly one, in field "audio".');
  });

  it('a text file named .mp3, listing the accepted formats', async () => {
    const body = await route.expectRefused(
      audioForm(TEXT_NAMED_MP3, 'notes.mp3'),
      'The file is not audio in an accepted format (MP3, WAV, M4A, FLAC, OGG, WEBM): its content is not audio in any of these formats.',
    );
    expect(body.details.acceptedFormats).toEqual([...AUDIO_FORMATS]);
  });

  it('a body that is not multipart', async () => {
    await route.expectRefused(JSON.stringify({ audio: 'aGVsbG8=' }), /^No audio file: .*The request's content type was "application\/json"\.$/, {
      headers: { 'content-type': 'application/json' },
    });
  });

  it('a multipart body cut off in the middle', async () => {
    const boundary = 'cut-off';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="a.wav"\r\n\r\nRIFF`;
    await route.expectRefused(body, /^Malformed multipart\/form-data body/, { headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
  });

  it('a language that is not BCP 47 or ISO 639-1, or has no two-letter code', async () => {
    await route.expectRefused(audioForm(silentWav(), 'speech.wav', { language: 'klingon!' }), /^Invalid form fields: language: "klingon!" is not/);
    await route.expectRefused(audioForm(silentWav(), 'speech.wav', { language: 'fil' }), /^Invalid form fields: language: "fil" is not/);
  });

  it('a field the route does not take', async () => {
    await route.expectRefused(audioForm(silentWav(), 'speech.wav', { model: 'gpt-4o' }), 'Invalid form fields: unrecognized field(s): model');
  });

  // They read as sent twice: the check found them on the fields' prototype.
  it.each(['constructor', 'toString', '__proto__'])('a field named %s, as any field the route does not take', async (name) => {
    await route.expectRefused(audioForm(silentWav(), 'speech.wav', { [name]: 'x' }), `Invalid form fields: unrecognized field(s): ${name}`);
  });

  it('a file part without a field name', async () => {
    const boundary = 'nameless';
    const body = `--${boundary}\r\nContent-Disposition: form-data; filename="a.wav"\r\n\r\nRIFF\r\n--${boundary}--\r\n`;
    const refused = await route.expectRefused(body, /^A file part without a field name: send it as multipart\/form-data in field "audio"/, {
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
    });
    expect(refused.details).toEqual({});
  });

  // It went through, and ?language=fr was ignored without a word.
  it('a query parameter: the route takes its fields in the form', async () => {
    const form = new Response(audioForm(silentWav(), 'speech.wav'));
    const headers = { 'content-type': form.headers.get('content-type')! };
    const response = await route.target.request('/stt?language=fr', { method: 'POST', headers, body: await form.arrayBuffer() });
    expect([response.status, await response.json()]).toEqual([
      400,
      { error: '/stt takes no query parameters; send language as a form field: language', code: 'INVALID_REQUEST', details: { field: 'query', refused: ['language'] } },
    ]);
    expect(route.recorder.calls).toEqual([]);
  });
});

// It was read as if plain: a gzipped form got "Malformed multipart/form-data body".
it('refuses a compressed upload with 415, naming its content coding', async () => {
  const form = new Response(audioForm(silentWav(), 'speech.wav'));
  const headers = { 'content-type': form.headers.get('content-type')!, 'content-encoding': 'gzip' };
  const response = await postStt(route.target, gzipSync(Buffer.from(await form.arrayBuffer())), { headers });
  expect([response.status, response.body]).toEqual([
    415,
    { error: 'Content-Encoding gzip is not accepted: send the body uncompressed.', code: 'INVALID_REQUEST', details: { contentEncoding: 'gzip' } },
  ]);
  expect(route.recorder.calls).toEqual([]);
});

// The scratch folder is made as the service starts: a temporary folder it cannot write stopped every start.
it('starts without a writable temporary folder, and only /stt fails', async () => {
  const app = await route.app({ engine: route.recorder.engine, tempDir: '/dev/null/companion-tmp' });
  expect((await app.request('/health')).status).toBe(200);
  const response = await postStt(app, audioForm(silentWav(), 'memo.wav'));
  expect(response).toMatchObject({ status: 500, body: { code: 'AUDIO_PROCESSING_ERROR' } });
  expect(route.recorder.calls).toEqual([]);
  // An instance that cannot transcribe is not ready.
  const ready = await app.request('/ready');
  expect(ready.status).toBe(503);
  expect((await ready.json()).checks['stt-local']).toEqual({ ok: false, detail: 'Uploads cannot be received: the temporary folder cannot be written (ENOTDIR).' });
});

describe('an upload over the limit', () => {
  /**
   * A multipart body whose file part is `fileBytes` of fresh zeros, made only as fast as it is read, after a preamble
   * of `preambleBytes` (text before the first boundary, which multipart parsers skip).
   */
  function streamedUpload(fileBytes: number, chunkBytes = 16 * 1024, preambleBytes = 0) {
    const boundary = 'streamed-upload';
    const preamble = 'p'.repeat(preambleBytes);
    const head = Buffer.from(`${preamble}--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="big.wav"\r\n\r\n`);
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

  /** Posts `upload` with no declared length (as a chunked request) to the route with a limit of `maxBytes`. */
  async function postUnsized(upload: ReturnType<typeof streamedUpload>, maxBytes: number) {
    return postStt(await route.app({ engine: route.recorder.engine, maxBytes }), upload.body, {
      headers: { 'content-type': upload.contentType },
      duplex: 'half',
    } as RequestInit);
  }

  it('is refused with 413 as soon as the limit is passed, without reading the rest of the body', async () => {
    const maxBytes = 256 * 1024;
    const upload = streamedUpload(16 * maxBytes);

    const { status, body } = await postUnsized(upload, maxBytes);

    expect(status).toBe(413);
    expect(body).toMatchObject({ code: 'INVALID_REQUEST', details: { maxBytes } });
    expect(upload.pulledBytes()).toBeGreaterThan(maxBytes);
    expect(upload.pulledBytes()).toBeLessThan(2 * maxBytes);
    expect(route.recorder.calls).toEqual([]);
  });

  it('is refused with 413 when what surrounds a small file passes the limit, length unknown (chunked)', async () => {
    const maxBytes = 256 * 1024;
    const { status, body } = await postUnsized(streamedUpload(1024, 16 * 1024, 4 * maxBytes), maxBytes);

    expect(status).toBe(413);
    expect(body).toMatchObject({ code: 'INVALID_REQUEST', details: { maxBytes } });
    expect(route.recorder.calls).toEqual([]);
  });

  it('is refused before any of it is read when its declared length is over the limit', async () => {
    const upload = streamedUpload(2 * MAX_AUDIO_BYTES);

    const { status } = await postStt(route.target, upload.body, {
      headers: { 'content-type': upload.contentType, 'content-length': String(2 * MAX_AUDIO_BYTES + 200) },
      duplex: 'half',
    } as RequestInit);

    expect(status).toBe(413);
    // At most the stream's first chunk (the part's headers): no file data.
    expect(upload.pulledBytes()).toBeLessThan(1024);
  });
});

describe('the OpenAPI document', () => {
  it('lists POST /stt with its multipart request and its responses', async () => {
    const document = await (await route.target.request('/api/openapi.json')).json();

    const operation = document.paths['/stt'].post;
    const request = operation.requestBody.content['multipart/form-data'].schema;
    expect(request.required).toEqual(['audio']);
    expect(request.properties.audio).toMatchObject({ type: 'string', format: 'binary' });
    expect(request.properties.language).toMatchObject({ type: 'string' });
    const success = operation.responses['200'].content['application/json'].schema;
    expect(Object.keys(success.properties)).toEqual(['transcript', 'success', 'timestamp', 'processingTime', 'language', 'durationSeconds', 'engine']);
    // The route's own statuses, then the SPEC error body for any other client or server error (auth, rate limits).
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '413', '415', '429', '500', '504', '4XX', '5XX']);
    expect(Object.keys(operation.responses['400'].content['application/json'].schema.properties)).toEqual(['error', 'code', 'details', 'stack']);
  });
});
