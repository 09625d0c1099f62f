/**
 * @module Receives `POST /stt`'s multipart body: the one file part, in field `audio`, streams straight to a
 * temporary file while the size limit is counted, so an upload over the limit is refused as soon as it
 * passes it and the service never holds more than a few chunks of any upload in memory.
 */
import { Busboy, type BusboyFileStream, type BusboyInstance } from '@fastify/busboy';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { ApiError, fromZodError, invalidRequest } from '../contract/errors.ts';
import { audioTooLarge, sttFields, type SttFields } from '../contract/stt.ts';
import { freshFolderIn } from './scratch-folder.ts';

const AUDIO_FIELD = 'audio';

/** Room for the multipart framing and the small text fields on top of the file itself. */
const FRAMING_ALLOWANCE_BYTES = 64 * 1024;

export interface UploadOptions {
  /** The largest file accepted, in bytes. */
  maxBytes: number;
  /** Where the temporary folder of each upload is made. */
  tempDir: string;
  /** Stops receiving the upload (its client left, or its deadline passed). */
  signal?: AbortSignal;
}

/** A complete, non-empty upload on disk. */
export interface ReceivedAudio {
  path: string;
  /** The client's file name, or `audio` when it sent none. */
  fileName: string;
  fields: SttFields;
}

const CURL_HINT = `send it as multipart/form-data in field "${AUDIO_FIELD}" (curl -F "${AUDIO_FIELD}=@memo.m4a")`;

/**
 * Receives the upload into a fresh temporary folder, hands it to `use`, and deletes the folder afterwards,
 * whatever happens. Bad uploads throw SPEC's `INVALID_REQUEST` (413 when too large).
 */
export async function withAudioUpload<T>(request: Request, options: UploadOptions, use: (audio: ReceivedAudio) => Promise<T>): Promise<T> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^multipart\/form-data\s*(;|$)/i.test(contentType)) {
    throw invalidRequest(`No audio file: ${CURL_HINT}. The request's content type was ${contentType ? `"${contentType}"` : 'missing'}.`);
  }
  // A declared length over the limit is refused before a byte of the body is read.
  if (Number(request.headers.get('content-length')) > options.maxBytes + FRAMING_ALLOWANCE_BYTES) throw audioTooLarge(options.maxBytes);
  if (!request.body) throw invalidRequest(`No audio file: the request has no body; ${CURL_HINT}.`);

  const folder = await freshFolderIn(options.tempDir, 'stt-');
  try {
    return await use(await receive(request.body, contentType, join(folder, 'upload'), options));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

interface FilePart {
  fileName: string;
  stream: BusboyFileStream;
  out: WriteStream;
  saved: Promise<void>;
}

async function receive(body: ReadableStream<Uint8Array>, contentType: string, path: string, { maxBytes, signal }: UploadOptions): Promise<ReceivedAudio> {
  const parser = createParser(contentType, maxBytes);
  const source = Readable.fromWeb(body as NodeReadableStream<Uint8Array>, { signal });
  // Without a prototype, a field named `constructor` or `__proto__` is a field like any other.
  const fields: Record<string, string> = Object.create(null);
  let file: FilePart | undefined;

  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('file', (name, stream, fileName) => {
      if (name !== AUDIO_FIELD) {
        stream.resume();
        if (!name) return reject(invalidRequest(`A file part without a field name: ${CURL_HINT}.`));
        return reject(invalidRequest(`Unexpected file in field "${name}": ${CURL_HINT}.`, { field: name }));
      }
      stream.on('limit', () => reject(audioTooLarge(maxBytes)));
      const out = createWriteStream(path);
      file = { fileName: fileName || AUDIO_FIELD, stream, out, saved: pipeline(stream, out) };
      // Its failure surfaces below, once parsing is done; until then it must not count as unhandled.
      file.saved.catch(() => {});
    });
    parser.on('field', (name, value, _nameTruncated, valueTruncated) => {
      const problem = fieldProblem(fields, name, valueTruncated);
      if (problem) return reject(problem);
      fields[name] = value;
      const checked = sttFields.safeParse(fields);
      if (!checked.success) reject(fromZodError(checked.error, 'form fields'));
    });
    parser.on('filesLimit', () => reject(invalidRequest(`More than one file: send exactly one, in field "${AUDIO_FIELD}".`)));
    parser.on('fieldsLimit', () => reject(invalidRequest('Too many form fields.')));
    parser.on('partsLimit', () => reject(invalidRequest('Too many form parts.')));
    parser.on('error', (error: Error) => reject(invalidRequest(`Malformed multipart/form-data body: ${error.message}.`)));
    parser.on('finish', resolve);
    source.on('error', () => reject(invalidRequest('The upload was interrupted before it was complete.')));
    // A body of unknown length (chunked) is held to the declared length's limit too: what surrounds the file (a
    // preamble, an epilogue) would otherwise be read without end.
    let bodyBytes = 0;
    source.on('data', (chunk: Uint8Array) => {
      bodyBytes += chunk.length;
      if (bodyBytes > maxBytes + FRAMING_ALLOWANCE_BYTES) reject(audioTooLarge(maxBytes));
    });
  });
  source.pipe(parser);

  try {
    await parsed;
    if (file === undefined) throw invalidRequest(`No audio file: ${CURL_HINT}.`);
    await file.saved;
  } catch (error) {
    // Stop reading the body, and close the file on disk before its folder is deleted.
    source.destroy();
    parser.destroy();
    if (file) await closeFile(file);
    throw error instanceof ApiError ? error : invalidRequest('The upload could not be received.');
  }
  if (file.stream.bytesRead === 0) throw invalidRequest('The audio file is empty.');
  return { path, fileName: file.fileName, fields: sttFields.parse(fields) };
}

/** Closes the file on disk, whether or not its pipeline still runs (a destroyed part does not always end it). */
async function closeFile(file: FilePart) {
  file.stream.destroy();
  if (file.out.closed) return;
  // Not events.once: the file may report the part's error first, and only 'close' means it is closed.
  const closed = new Promise<void>((resolve) => file.out.once('close', () => resolve()));
  file.out.destroy();
  await closed;
}

function createParser(contentType: string, maxBytes: number): BusboyInstance {
  try {
    return Busboy({
      headers: { 'content-type': contentType },
      // files: 1 makes a second file a `filesLimit`; the text fields are tiny.
      limits: { fileSize: maxBytes, files: 1, fields: 4, fieldSize: 256, parts: 6 },
    });
  } catch (error) {
    throw invalidRequest(`Malformed multipart/form-data content type: ${(error as Error).message}.`);
  }
}

function fieldProblem(fields: Record<string, string>, name: string, valueTruncated: boolean): ApiError | undefined {
  if (name === AUDIO_FIELD) return invalidRequest(`Field "${AUDIO_FIELD}" must be a file, not text: ${CURL_HINT}.`);
  if (name in fields) return invalidRequest(`Field "${name}" was sent more than once.`, { field: name });
  if (valueTruncated) return invalidRequest(`Field "${name}" is too long.`, { field: name });
  return undefined;
}
