/**
 * @module CMU PocketSphinx (Debian's libpocketsphinx3, version 5prealpha) called in-process through koffi.
 * One decoder per process: it holds the acoustic model, the dictionary and the language model (~110 MB),
 * and decodes each chunk of 16 kHz mono PCM as one whole utterance.
 *
 * The model is Debian's general US English one. It knows few of the places a companion is asked about
 * ("Varanasi", "Rishikesh", "Bodh Gaya"), so a decoder may be given a companion model besides: a dictionary
 * (Debian's, plus pronunciations of the words it lacks) and a small bigram model of place names after the
 * words that introduce them ("in", "to", "visit", …), interpolated with the general model. Adding words to
 * the loaded model instead (`ps_add_word`, `ngram_model_add_word`) is not possible in this library version:
 * `ngram_model_trie_add_ug` writes past the unigram array it has just reallocated (SIGSEGV in memset).
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
  /** The companion's words, on top of the general model (see the module comment). */
  companion?: CompanionModel;
}

export interface CompanionModel {
  /** Replaces Debian's dictionary: all of it plus the companion words it lacks. */
  dictionary: string;
  /** An ARPA language model of the companion's words. */
  languageModel: string;
  /** Its share of the interpolated probability (the general model has the rest). */
  weight: number;
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
    psGetLogmath: lib.func('void *ps_get_logmath(void *ps)'),
    psSetLm: lib.func('int ps_set_lm(void *ps, const char *name, void *lm)'),
    psSetSearch: lib.func('int ps_set_search(void *ps, const char *name)'),
    // libsphinxbase's, found through libpocketsphinx (a dependency of it).
    lmRead: lib.func('void *ngram_model_read(void *config, const char *path, int type, void *logmath)'),
    lmSetInit: lib.func('void *ngram_model_set_init(void *config, void **models, const char **names, const float *weights, int count)'),
  };
}

const NGRAM_AUTO = 0;
const NGRAM_ARPA = 1;

/** Searches with the general model interpolated with the companion one. */
function useCompanionModel(ps: ReturnType<typeof bind>, decoder: unknown, config: unknown, generalPath: string, companion: CompanionModel) {
  const logmath = ps.psGetLogmath(decoder);
  const general = ps.lmRead(config, generalPath, NGRAM_AUTO, logmath);
  const words = ps.lmRead(config, companion.languageModel, NGRAM_ARPA, logmath);
  if (!general || !words) throw new Error('PocketSphinx could not read its language models');
  const interpolated = ps.lmSetInit(config, [general, words], ['general', 'companion'], [1 - companion.weight, companion.weight], 2);
  if (!interpolated || ps.psSetLm(decoder, 'companion', interpolated) < 0 || ps.psSetSearch(decoder, 'companion') < 0) {
    throw new Error('PocketSphinx could not use the companion language model');
  }
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
  const { companion } = settings;
  const args = ['-hmm', files.acousticModel, '-dict', companion?.dictionary ?? files.dictionary];
  if (!companion) args.push('-lm', files.languageModel);
  const config = ps.cmdLnParse(null, ps.psArgs(), args.length, args, 1);
  const decoder = ps.psInit(config);
  if (!decoder) throw new Error('PocketSphinx did not start');
  if (companion) useCompanionModel(ps, decoder, config, files.languageModel, companion);

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
