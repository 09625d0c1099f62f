/**
 * @module Speech-to-text engines: what an engine receives and returns. The route decides the format by
 * content and enforces the limits before an engine sees the audio; engines only transcribe.
 */

import type { AudioFormat } from '../contract/stt.ts';

/** An accepted upload, already probed: a temporary file the route deletes after the engine is done. */
export interface AudioUpload {
  path: string;
  format: AudioFormat;
  durationSeconds: number;
  /** The client's file name, for engines whose API wants one (never trusted for the format). */
  fileName: string;
  /** The audio as 16 kHz mono 16-bit PCM, when the engine asked for it (`usesPcm`) and the probe decoded it. */
  pcmPath?: string;
}

export interface TranscribeOptions {
  /** ISO 639-1 code (`en`), or undefined to detect. */
  language?: string;
  /** Aborted when the client hangs up or `STT_TIMEOUT_MS` runs out: the engine stops its work. */
  signal?: AbortSignal;
}

export interface Transcription {
  transcript: string;
  /** ISO 639-1 code of the language transcribed: detected if the engine can tell, else the one asked for, else `en`. */
  language: string;
}

export interface EngineReadiness {
  ok: boolean;
  /** Why the engine cannot work, e.g. the missing package and the apt command that installs it. */
  detail?: string;
}

export interface SttEngine {
  readonly name: 'openai' | 'local';
  /** It transcribes decoded PCM: the route's probe, which decodes the upload anyway, keeps the PCM for it. */
  readonly usesPcm?: boolean;
  transcribe(audio: AudioUpload, options: TranscribeOptions): Promise<Transcription>;
  /**
   * Whether the engine can work now (packages present, key configured), for the readiness answer; with the
   * programs the route probes every upload with (probe.ts's `probeReadiness`), without which it cannot.
   */
  readiness(): Promise<EngineReadiness>;
  /** Releases workers or pools. */
  close(): Promise<void>;
}
