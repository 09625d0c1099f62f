/**
 * @module The embedded, offline speech-to-text engine: Debian's ffmpeg decodes any accepted format to
 * 16 kHz mono PCM (the route's probe has done so already: `usesPcm`), the stream is cut at pauses into
 * bounded chunks, and a pool of PocketSphinx worker
 * processes transcribes them; the transcript is the chunks' words in order. English only.
 * Memory stays flat however long the upload: at most a few chunks are in memory at any time.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createReadStream, existsSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, invalidRequest } from '../contract/errors.ts';
import { configuredModelMissing, transcriptionFailed } from '../contract/stt.ts';
import type { AudioUpload, EngineReadiness, SttEngine, TranscribeOptions, Transcription } from './engine.ts';
import { chunkAtPauses, isSilent } from './pcm-chunker.ts';
import { PCM_OUTPUT_OPTIONS, probeReadiness } from './probe.ts';
import { hasModel, loadLibrary, MissingPackageError, modelFiles, SAMPLE_RATE, type DecoderSettings } from '../mastra/public/stt/pocketsphinx.ts';
import { COMPANION_WEIGHT, writeCompanionModel, type CompanionModelFiles } from './companion-model.ts';
import type { CompanionVocabulary } from './companion-vocabulary.ts';
import { ownFolder } from './scratch-folder.ts';
import { SphinxPool } from './sphinx-pool.ts';
import { missingPackageError } from './system-packages.ts';

export interface LocalEngineOptions {
  /** Debian's `pocketsphinx-en-us` model directory. */
  modelDir?: string;
  /** The ffmpeg binary, a name on PATH or a path. */
  ffmpegPath?: string;
  /** libpocketsphinx, a name the dynamic loader finds or a path. */
  libraryPath?: string;
  /** Decoder processes shared by all transcriptions (each about 180 MB while alive). */
  workers?: number;
  /** An idle worker exits after this long, giving its memory back. */
  idleTimeoutMs?: number;
  /** Place names and words to recognise beyond Debian's general model; none when undefined. */
  vocabulary?: CompanionVocabulary;
  /** Where the engine keeps its companion model files while it runs. */
  tempDir?: string;
}

const LOCAL_ENGINE_DEFAULTS = {
  modelDir: '/usr/share/pocketsphinx/model/en-us',
  ffmpegPath: 'ffmpeg',
  libraryPath: 'libpocketsphinx.so.3',
  workers: availableParallelism(),
  idleTimeoutMs: 300_000,
  tempDir: tmpdir(),
} satisfies Omit<Required<LocalEngineOptions>, 'vocabulary'>;

const SUPPORTED_LANGUAGE = 'en';

/** Longest chunk decoded at once; shorter bounds memory, longer gives the recogniser more context. */
export const CHUNK_SECONDS = 20;

export function createLocalEngine(options: LocalEngineOptions = {}): SttEngine {
  // An option left undefined (an unset environment key) keeps its default.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
  const settings: LocalEngineOptions & typeof LOCAL_ENGINE_DEFAULTS = { ...LOCAL_ENGINE_DEFAULTS, ...given };
  let companionDir: string | undefined;
  let companionFiles: CompanionModelFiles | undefined;
  let pool: Promise<SphinxPool> | undefined;
  let rewriting: Promise<unknown> | undefined;
  const removeCompanionDir = () => companionDir && rmSync(companionDir, { recursive: true, force: true });
  const writeCompanion = (dir: string) => writeCompanionModel(dir, settings.vocabulary!, modelFiles(settings.modelDir).dictionary);

  /** The pool, made on first use, once the companion model (if any) is written for its workers to load. */
  async function createPool(): Promise<SphinxPool> {
    const decoder: DecoderSettings = { modelDir: settings.modelDir, libraryPath: settings.libraryPath };
    if (settings.vocabulary) {
      companionDir = await mkdtemp(join(settings.tempDir, 'stt-vocabulary-'));
      // Mastra's server ends the process on SIGTERM without closing the service's parts: the files go then too.
      process.once('exit', removeCompanionDir);
      companionFiles = await writeCompanion(companionDir);
      decoder.companion = { ...companionFiles, weight: COMPANION_WEIGHT };
    }
    return new SphinxPool({ size: Math.max(1, settings.workers), idleTimeoutMs: settings.idleTimeoutMs, settings: decoder });
  }
  function decoderPool(): Promise<SphinxPool> {
    pool ??= createPool().catch((error: unknown) => {
      pool = undefined;
      throw error;
    });
    return pool;
  }
  /**
   * The companion model where the pool's workers read it, each time one starts: a temporary-folder cleaner removes
   * it after days without `/stt` (idle workers exit meanwhile), and every worker started since had failed.
   */
  async function companionModelInPlace(): Promise<void> {
    const dir = companionDir;
    if (!dir || !companionFiles) return;
    // While it is being written again, every transcription waits for it, not only the first.
    if (!rewriting && existsSync(companionFiles.dictionary) && existsSync(companionFiles.languageModel)) return;
    rewriting ??= ownFolder(dir)
      .then(() => writeCompanion(dir))
      .finally(() => (rewriting = undefined));
    await rewriting;
  }

  let libraryFound = false;
  /**
   * What keeps the recogniser from working (ffmpeg is found when it is started): its model, missing from a
   * folder the configuration names (the setting's fault) or from Debian's (the package's), or its library.
   */
  async function recogniserProblem(): Promise<ApiError | undefined> {
    if (!hasModel(settings.modelDir)) return given.modelDir !== undefined ? configuredModelMissing() : missingPackageError('pocketsphinx-en-us');
    if (libraryFound) return undefined;
    try {
      await loadLibrary(settings.libraryPath);
      libraryFound = true;
    } catch (error) {
      if (error instanceof MissingPackageError) return missingPackageError(error.packageName);
      throw error;
    }
    return undefined;
  }

  return {
    name: 'local',
    usesPcm: true,

    async transcribe(audio: AudioUpload, { language, signal }: TranscribeOptions): Promise<Transcription> {
      assertEnglish(language);
      signal?.throwIfAborted();
      const problem = await recogniserProblem();
      if (problem) throw problem;
      const pool = await decoderPool();
      await companionModelInPlace();
      const transcript = await transcribeFile(audio, {
        ffmpegPath: settings.ffmpegPath,
        inFlight: Math.max(1, settings.workers) + 1,
        pool,
        signal,
      });
      return { transcript, language: SUPPORTED_LANGUAGE };
    },

    async readiness(): Promise<EngineReadiness> {
      // ffmpeg is the probe's to check (found once, then no process per poll): the service's uploads come with the
      // probe's PCM, so this engine's own ffmpeg (`ffmpegPath`) runs only for callers that send none.
      const problem = await recogniserProblem();
      return problem ? { ok: false, detail: problem.message } : probeReadiness();
    },

    async close() {
      await (await pool?.catch(() => undefined))?.close();
      process.off('exit', removeCompanionDir);
      if (companionDir) await rm(companionDir, { recursive: true, force: true });
    },
  };
}

/** English in any region (`en`, `en-US`, `en-GB`) or unspecified; anything else is the client's mistake. */
function assertEnglish(language: string | undefined) {
  if (language === undefined || /^en(-|_|$)/i.test(language)) return;
  throw invalidRequest(
    `The local speech engine transcribes English only (language "en"); ${JSON.stringify(language.slice(0, 35))} is not supported.`,
    { supportedLanguages: [SUPPORTED_LANGUAGE] },
  );
}

const AUDIO_UNDECODABLE = () => transcriptionFailed('The audio could not be decoded for transcription.');

interface PcmSource {
  pcm: AsyncIterable<Buffer>;
  /** Settles once the source has ended; rejects if it failed. */
  ended: Promise<void>;
}

/** The upload's PCM: the file the route's probe decoded it to, or else ffmpeg decoding it now. */
async function pcmSource(audio: AudioUpload, ffmpegPath: string, signal: AbortSignal): Promise<PcmSource> {
  if (audio.pcmPath) return { pcm: createReadStream(audio.pcmPath, { signal }), ended: Promise.resolve() };
  const ffmpeg = spawn(
    ffmpegPath,
    ['-nostdin', '-v', 'error', '-i', audio.path, '-map', '0:a:0', ...PCM_OUTPUT_OPTIONS, 'pipe:1'],
    { stdio: ['ignore', 'pipe', 'ignore'], signal, killSignal: 'SIGKILL' },
  );
  // Its failures are read from 'spawn' and 'close' below; a kill on abort must not become an uncaught 'error'.
  ffmpeg.on('error', () => {});
  const exited = once(ffmpeg, 'close').catch(() => [null]);
  await once(ffmpeg, 'spawn').catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ENOENT' || error.code === 'EACCES' ? missingPackageError('ffmpeg') : error;
  });
  const ended = exited.then(([code]) => {
    if (code !== 0) throw AUDIO_UNDECODABLE();
  });
  // Awaited once the PCM is read; a failure before then must not count as unhandled meanwhile.
  ended.catch(() => {});
  return { pcm: ffmpeg.stdout!, ended };
}

async function transcribeFile(
  audio: AudioUpload,
  options: { ffmpegPath: string; inFlight: number; pool: SphinxPool; signal?: AbortSignal },
): Promise<string> {
  // Whatever ends this transcription early (abort, a failed chunk, ffmpeg failing) stops all of its work.
  const stop = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  let failure: unknown;
  try {
    const source = await pcmSource(audio, options.ffmpegPath, signal);
    const texts: Promise<string>[] = [];
    const running = new Set<Promise<unknown>>();
    for await (const chunk of chunkAtPauses(source.pcm, { sampleRate: SAMPLE_RATE, maxSeconds: CHUNK_SECONDS })) {
      const text = isSilent(chunk) ? Promise.resolve('') : options.pool.decode(chunk, signal);
      texts.push(text);
      // Reading pauses (and ffmpeg with it) while enough chunks wait: memory stays bounded.
      const settled: Promise<unknown> = text.then(
        (): unknown => running.delete(settled),
        (error: unknown) => {
          failure ??= error;
          stop.abort();
        },
      );
      running.add(settled);
      if (running.size >= options.inFlight) await Promise.race(running);
      signal.throwIfAborted();
    }
    await source.ended;
    return (await Promise.all(texts)).filter(Boolean).join(' ');
  } catch (error) {
    stop.abort();
    if (options.signal?.aborted) throw options.signal.reason;
    if (failure instanceof ApiError) throw failure;
    if (error instanceof ApiError) throw error;
    throw transcriptionFailed('The audio could not be transcribed.', error);
  }
}
