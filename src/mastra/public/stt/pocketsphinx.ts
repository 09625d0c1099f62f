/**
 * @module CMU PocketSphinx (Debian's libpocketsphinx3, version 5prealpha) called in-process through koffi.
 * One decoder per process: it holds the acoustic model, the dictionary and the language model (~110 MB),
 * and decodes each chunk of 16 kHz mono PCM as one whole utterance.
 *
 * The model is Debian's general US English one, unchanged. Extending it with the companion's words was
 * measured and dropped: in this library version adding words to a loaded language model
 * (`ps_add_word`, `ngram_model_add_word`) corrupts memory after a few words, and interpolating it with
 * a unigram model of companion words and place names raised the word error rate of the synthetic
 * set with two place-name sentences from 9.6 % to 13 %.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { IKoffiLib } from 'koffi';
import type { SystemPackage } from '../../../stt/system-packages.ts';

export const SAMPLE_RATE = 16_000;

export interface DecoderSettings {
  /** Directory of Debian's `pocketsphinx-en-us` model (acoustic model `en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`). */
  modelDir: string;
  /** The shared library, a name the dynamic loader finds or a path. */
  libraryPath: string;
}

/** A package the decoder cannot start without; the caller turns it into the user-facing error. */
export class MissingPackageError extends Error {
  override name = 'MissingPackageError';
  readonly packageName: SystemPackage;
  constructor(packageName: SystemPackage) {
    super(`missing package ${packageName}`);
    this.packageName = packageName;
  }
}

export function modelFiles(modelDir: string) {
  return {
    acousticModel: join(modelDir, 'en-us'),
    languageModel: join(modelDir, 'en-us.lm.bin'),
    dictionary: join(modelDir, 'cmudict-en-us.dict'),
  };
}

export function hasModel(modelDir: string): boolean {
  const files = modelFiles(modelDir);
  return existsSync(join(files.acousticModel, 'mdef')) && existsSync(files.languageModel) && existsSync(files.dictionary);
}

/**
 * Loads the library (the loader finds libsphinxbase through it), or throws MissingPackageError.
 * koffi is imported only here, so a service that never transcribes locally never loads it.
 */
export async function loadLibrary(libraryPath: string): Promise<IKoffiLib> {
  const { default: koffi } = await import('koffi');
  try {
    return koffi.load(libraryPath);
  } catch {
    throw new MissingPackageError('libpocketsphinx3');
  }
}

function bind(lib: IKoffiLib) {
  return {
    errSetLogfile: lib.func('int err_set_logfile(const char *path)'),
    psArgs: lib.func('void *ps_args()'),
    cmdLnParse: lib.func('void *cmd_ln_parse_r(void *inout, void *defn, int argc, const char **argv, int strict)'),
    psInit: lib.func('void *ps_init(void *config)'),
    psStartUtt: lib.func('int ps_start_utt(void *ps)'),
    psProcessRaw: lib.func('int ps_process_raw(void *ps, const int16_t *data, size_t n, int no_search, int full_utt)'),
    psEndUtt: lib.func('int ps_end_utt(void *ps)'),
    psGetHyp: lib.func('const char *ps_get_hyp(void *ps, void *score)'),
  };
}

export interface Decoder {
  /** The words heard in one utterance of 16 kHz mono 16-bit PCM ('' when none). */
  decode(pcm: Int16Array): string;
}

export async function openDecoder(settings: DecoderSettings): Promise<Decoder> {
  if (!hasModel(settings.modelDir)) throw new MissingPackageError('pocketsphinx-en-us');
  const ps = bind(await loadLibrary(settings.libraryPath));
  ps.errSetLogfile('/dev/null');
  const files = modelFiles(settings.modelDir);
  // The library's default search settings are kept on purpose. Measured over the synthetic phrases in
  // four flite voices, they gave the lowest word error rate: a higher language weight (-lw 8 or 10)
  // raised it from 2.9 % to 9.8 % and 38 %, a lower one or a wider beam changed nothing, and fewer
  // active HMMs per frame (-maxhmmpf 3000) saved ~38 % CPU but cost accuracy on one voice (9.8 % to 13.7 %).
  const args = ['-hmm', files.acousticModel, '-lm', files.languageModel, '-dict', files.dictionary];
  const decoder = ps.psInit(ps.cmdLnParse(null, ps.psArgs(), args.length, args, 1));
  if (!decoder) throw new Error('PocketSphinx did not start');

  return {
    decode(pcm) {
      if (ps.psStartUtt(decoder) < 0) throw new Error('PocketSphinx could not start an utterance');
      // A whole utterance at once: cepstral mean normalisation is then computed over this chunk alone,
      // so nothing of an earlier request (another user's voice and microphone) colours this one.
      ps.psProcessRaw(decoder, pcm, pcm.length, 0, 1);
      ps.psEndUtt(decoder);
      return (ps.psGetHyp(decoder, null) as string | null) ?? '';
    },
  };
}
