/**
 * POST /stt in a real server process, where it matters: an upload over 25 MB is refused before it has
 * been sent whole, and four transcriptions in flight leave `/health` answering. (That the server keeps
 * no copy of an upload is src/routes/custom-route-body.test.ts's: its resident memory also counts
 * garbage not yet collected, about twice the bytes read, so it cannot tell.) A service without ffmpeg's
 * programs on its PATH is not ready, whichever engine it runs. And a service stopped with SIGTERM leaves no
 * temporary files of its local engine behind.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_AUDIO_BYTES } from '../src/contract/stt.ts';
import { audioFixtures, type AudioFixtures } from './fixtures/audio.ts';
import { deferred, startOpenAIStandIn, type OpenAIStandIn } from './fixtures/openai-stand-in.ts';
import { startService, type RunningService } from './fixtures/service.ts';
import { requireSpeechTools, speech } from './fixtures/speech.ts';

const MB = 1024 * 1024;

let standIn: OpenAIStandIn;
let service: RunningService;
let audio: AudioFixtures;

beforeAll(async () => {
  standIn = await startOpenAIStandIn();
  audio = await audioFixtures();
  service = await startService({ STT_PROVIDER: 'openai', STT_BASE_URL: standIn.baseURL, STT_API_KEY: 'test-key', DATABASE_URL: 'none' });
});
beforeEach(() => standIn.reset());
afterAll(async () => {
  await service?.stop();
  await standIn?.close();
});

interface WithheldUpload {
  /** how many bytes of the file to send before waiting for the answer */
  sendFileBytes: number;
  /** the whole file's size, declared in Content-Length when `declareLength` */
  fileBytes: number;
  declareLength?: boolean;
}

/**
 * Sends a multipart upload of zeros but withholds its end: only an answer given before the body is
 * complete can arrive. Resolves with that answer and how much of the body was never sent.
 */
function withheldUpload(url: string, { sendFileBytes, fileBytes, declareLength = false }: WithheldUpload) {
  const boundary = 'withheld-upload';
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="huge.wav"\r\n\r\n`);
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const headers: Record<string, string> = { 'content-type': `multipart/form-data; boundary=${boundary}` };
  if (declareLength) headers['content-length'] = String(head.length + fileBytes + tail.length);
  return new Promise<{ status: number; body: any; unsentBytes: number }>((resolve, reject) => {
    let sent = 0;
    const upload = request(`${url}/stt`, { method: 'POST', headers });
    upload.on('error', reject);
    upload.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        upload.destroy();
        resolve({ status: response.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()), unsentBytes: fileBytes - sent });
      });
    });
    const chunk = Buffer.alloc(256 * 1024);
    upload.write(head);
    const sendMore = () => {
      while (sent < sendFileBytes) {
        const piece = chunk.subarray(0, Math.min(chunk.length, sendFileBytes - sent));
        sent += piece.length;
        if (!upload.write(piece)) return void upload.once('drain', sendMore);
      }
    };
    sendMore();
  });
}

describe('an upload over 25 MB', () => {
  it('is refused with 413 while the client is still sending it', async () => {
    // 26 MB declared by nothing but the bytes themselves: the client sends the first 25.25 MB, then waits.
    const answer = await withheldUpload(service.url, { fileBytes: 26 * MB, sendFileBytes: MAX_AUDIO_BYTES + MB / 4 });

    expect(answer.status).toBe(413);
    expect(answer.body).toEqual({ error: 'The audio file is larger than the 25 MiB (26,214,400 bytes) limit.', code: 'INVALID_REQUEST', details: { maxBytes: MAX_AUDIO_BYTES } });
    expect(answer.unsentBytes).toBeGreaterThan(0);
    expect(standIn.requests).toEqual([]);
  });

  it('is refused with 413 before any of it is sent when its Content-Length says so', async () => {
    const answer = await withheldUpload(service.url, { fileBytes: 26 * MB, sendFileBytes: 0, declareLength: true });

    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe('INVALID_REQUEST');
    expect(answer.unsentBytes).toBe(26 * MB);
  });
});

describe('four transcriptions at once', () => {
  it('are all in flight together while /health answers, then all answered', async () => {
    const fourAtProvider = deferred();
    const release = deferred();
    standIn.beforeReply = async () => {
      if (standIn.requests.length === 4) fourAtProvider.resolve();
      await release.promise;
    };
    const texts = ['One.', 'Two.', 'Three.', 'Four.'];
    standIn.script(...texts.map((text) => ({ text })));
    const memo = new Uint8Array(await audio.read('memo.m4a'));
    let settled = 0;

    const transcriptions = texts.map(async () => {
      const form = new FormData();
      form.append('audio', new File([memo], 'memo.m4a'));
      const response = await fetch(`${service.url}/stt`, { method: 'POST', body: form });
      settled++;
      return { status: response.status, body: await response.json() };
    });
    await fourAtProvider.promise;
    const health = await fetch(`${service.url}/health`);
    const settledWhileHealthAnswered = settled;
    release.resolve();
    const answers = await Promise.all(transcriptions);

    expect(health.status).toBe(200);
    expect(settledWhileHealthAnswered).toBe(0);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((answer) => answer.body.transcript).sort()).toEqual([...texts].sort());
    expect(answers.every((answer) => answer.body.engine === 'openai' && answer.body.durationSeconds > 0)).toBe(true);
  });
});

describe("a provider that keeps failing (the AI SDK's retries exhausted)", () => {
  it("logs one 'request failed' line by code, class and upstream status, never the provider's words, URL or stack", async () => {
    const retrying = await startService({ STT_PROVIDER: 'openai', STT_BASE_URL: standIn.baseURL, STT_API_KEY: 'test-key', DATABASE_URL: 'none', MODEL_MAX_RETRIES: '2' });
    try {
      // retry-after-ms: 0 lets the SDK retry at once instead of after 2 s and 4 s.
      const failure = { error: { status: 500, message: 'Incorrect API key provided: sk-proj-LEAKED****WXYZ', headers: { 'retry-after-ms': '0' } } };
      standIn.script(failure, failure, failure);
      const form = new FormData();
      form.append('audio', new File([new Uint8Array(await audio.read('memo.m4a'))], 'memo.m4a'));
      const response = await fetch(`${retrying.url}/stt`, { method: 'POST', body: form });

      expect(response.status).toBe(500);
      expect(await response.json()).toEqual({
        error: 'The speech-to-text provider failed (upstream status 500).',
        code: 'AUDIO_PROCESSING_ERROR',
        details: { upstreamStatus: 500 },
      });
      expect(standIn.requests).toHaveLength(3);
      await retrying.stop();
      const errorLines = retrying.output().split('\n').filter((line) => line.includes('"level":50')).map((line) => JSON.parse(line));
      expect(errorLines).toEqual([
        expect.objectContaining({
          msg: 'request failed',
          traceId: response.headers.get('x-trace-id'),
          code: 'AUDIO_PROCESSING_ERROR',
          status: 500,
          errorClass: 'AI_APICallError',
          upstreamStatus: 500,
        }),
      ]);
      const output = retrying.output();
      for (const leak of ['LEAKED', standIn.baseURL, 'responseBody', 'requestBodyValues', 'test-key']) expect(output).not.toContain(leak);
      expect(output).not.toMatch(/\\n\s+at /);
    } finally {
      await retrying.stop();
    }
  });
});

describe('a service whose PATH lacks ffmpeg or ffprobe, which probe every upload', () => {
  /** A folder holding only these of the system's programs, to be a service's whole PATH. */
  function pathWith(programs: string[]): string {
    const dir = mkdtempSync(join(tmpdir(), 'companion-path-'));
    for (const program of programs) symlinkSync(execFileSync('which', [program], { encoding: 'utf8' }).trim(), join(dir, program));
    return dir;
  }

  async function postMemo(url: string) {
    const form = new FormData();
    form.append('audio', new File([new Uint8Array(await audio.read('memo.m4a'))], 'memo.m4a'));
    return fetch(`${url}/stt`, { method: 'POST', body: form });
  }

  it.each([
    { engine: 'openai', programs: [], missing: 'ffprobe' },
    { engine: 'openai', programs: ['ffprobe'], missing: 'ffmpeg' },
    { engine: 'local', programs: ['ffmpeg'], missing: 'ffprobe' },
  ])('$engine engine with $programs: /ready names the missing $missing, as /stt does', async ({ engine, programs, missing }) => {
    const path = pathWith(programs);
    // A model is configured: the speech engine is all that can make the service unready.
    const env: Record<string, string> = { STT_PROVIDER: engine, OPENAI_API_KEY: 'k', DATABASE_URL: 'none', PATH: path };
    if (engine === 'openai') env.STT_BASE_URL = standIn.baseURL;
    const started = await startService(env);
    try {
      const ready = await fetch(`${started.url}/ready`);
      const transcription = await postMemo(started.url);

      const error = `Speech-to-text needs \`${missing}\`, which is not installed: run \`apt-get install -y ffmpeg\`.`;
      const { status, checks } = await ready.json();
      expect([ready.status, status]).toEqual([503, 'unavailable']);
      expect(checks).toMatchObject({ model: { ok: true }, [`stt-${engine}`]: { ok: false, detail: error } });
      expect(transcription.status).toBe(500);
      expect(await transcription.json()).toMatchObject({ code: 'AUDIO_PROCESSING_ERROR', error });
      expect(standIn.requests).toEqual([]);
    } finally {
      await started.stop();
      rmSync(path, { recursive: true, force: true });
    }
  });

  it('refuses audio whose container states a length over STT_MAX_AUDIO_SECONDS before decoding it: as too long, not as undecodable without ffmpeg', async () => {
    const path = pathWith(['ffprobe']);
    const started = await startService({ STT_PROVIDER: 'openai', STT_BASE_URL: standIn.baseURL, OPENAI_API_KEY: 'k', DATABASE_URL: 'none', STT_MAX_AUDIO_SECONDS: '1', PATH: path });
    try {
      const response = await postMemo(started.url);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_REQUEST', details: { maxSeconds: 1 } });
      expect(standIn.requests).toEqual([]);
    } finally {
      await started.stop();
      rmSync(path, { recursive: true, force: true });
    }
  });
});

describe('the local engine in a service that stops', () => {
  /** A local-engine service on its own TMPDIR that has transcribed once (its vocabulary model is written on first use). */
  async function transcribedOnce(tmp: string) {
    const local = await startService({ STT_PROVIDER: 'local', DATABASE_URL: 'none', TMPDIR: tmp });
    const form = new FormData();
    form.append('audio', new Blob([readFileSync(await speech('hello there', 'wav'))], { type: 'audio/wav' }), 'hello.wav');
    expect((await fetch(`${local.url}/stt`, { method: 'POST', body: form })).status).toBe(200);
    const [scratch, ...others] = readdirSync(tmp);
    expect(others).toEqual([]);
    expect(scratch).toMatch(new RegExp(`^companion-agent\\..+\\.${local.pid}\\.\\w+$`));
    expect(readdirSync(join(tmp, scratch!)).filter((name) => name.startsWith('stt-vocabulary-'))).toHaveLength(1);
    return local;
  }

  it('with SIGTERM: leaves none of its temporary files behind', async () => {
    await requireSpeechTools();
    const tmp = mkdtempSync(join(tmpdir(), 'companion-tmp-'));
    const local = await transcribedOnce(tmp);
    await local.stop('SIGTERM');
    expect(readdirSync(tmp)).toEqual([]);
    rmSync(tmp, { recursive: true, force: true });
  });

  // A temporary-folder cleaner may take the whole scratch folder, the engine's companion model with it.
  it('goes on transcribing, places included, after a cleaner emptied its TMPDIR', async () => {
    await requireSpeechTools();
    const tmp = mkdtempSync(join(tmpdir(), 'companion-tmp-'));
    const local = await transcribedOnce(tmp);
    try {
      for (const name of readdirSync(tmp)) rmSync(join(tmp, name), { recursive: true, force: true });
      const form = new FormData();
      form.append('audio', new Blob([readFileSync(await speech('i would love to visit varanasi next spring', 'wav'))], { type: 'audio/wav' }), 'v.wav');
      const answer = await fetch(`${local.url}/stt`, { method: 'POST', body: form });
      expect(answer.status).toBe(200);
      expect((await answer.json()).transcript).toContain('varanasi');
    } finally {
      await local.stop('SIGTERM');
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  // A crash removes nothing: every crash left its vocabulary model (3.5 MB), and a running transcription its upload and PCM.
  it('with kill -9: the next start removes what it left behind', async () => {
    await requireSpeechTools();
    const tmp = mkdtempSync(join(tmpdir(), 'companion-tmp-'));
    const crashed = await transcribedOnce(tmp);
    const [leftBehind] = readdirSync(tmp);
    await crashed.stop('SIGKILL');
    expect(readdirSync(tmp)).toEqual([leftBehind]);
    const next = await startService({ STT_PROVIDER: 'local', DATABASE_URL: 'none', TMPDIR: tmp });
    try {
      expect(readdirSync(tmp)).toHaveLength(1);
      expect(readdirSync(tmp)).not.toContain(leftBehind);
    } finally {
      await next.stop('SIGTERM');
    }
    rmSync(tmp, { recursive: true, force: true });
  });
});
