/**
 * @module The companion model a PocketSphinx decoder loads beside Debian's general one (see pocketsphinx.ts),
 * written once per engine into its temporary folder:
 * - a dictionary: Debian's, plus the pronunciations of vocabulary words it lacks (data/companion-pronunciations.json,
 *   made by flite's letter-to-sound rules: `npm run stt:pronunciations`);
 * - an ARPA bigram model in which a place name follows the words that introduce one ("in", "to", "visit", …) and
 *   its words follow each other ("bodh" → "gaya"), and the companion's words may come anywhere.
 * Place names are only likely where a place is expected: spread over the whole sentence, hundreds of rare
 * foreign names were heard in ordinary speech ("near the lake" became "neveh like").
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import pronunciationData from './data/companion-pronunciations.json' with { type: 'json' };
import { vocabularyWords, type CompanionVocabulary } from './companion-vocabulary.ts';

/** The companion model's share of the interpolated probability (measured: see the README's STT section). */
export const COMPANION_WEIGHT = 0.05;

/** Words after which a place name is expected. */
const PLACE_CONTEXTS = ['in', 'to', 'near', 'from', 'visit', 'of', 'about', 'at', 'around', 'for', 'is', 'towards', 'reach', 'see'];

/** log10 probabilities: words that only carry bigrams are all but impossible on their own. */
const CARRIER_LOG_PROB = -7;
const COMPANION_WORD_LOG_PROB = -4;
const IMPOSSIBLE = -99;

const PronunciationsSchema = z.record(z.string().regex(/^[a-z']+$/), z.string().regex(/^[A-Z]+( [A-Z]+)*$/));

/** Word → CMU phones (`V AA R AA N AA S IY`) for vocabulary words Debian's dictionary lacks. */
export const PRONUNCIATIONS: Readonly<Record<string, string>> = PronunciationsSchema.parse(pronunciationData);

export interface CompanionModelFiles {
  dictionary: string;
  languageModel: string;
}

/** Writes the dictionary and the language model into `dir`. */
export async function writeCompanionModel(dir: string, vocabulary: CompanionVocabulary, debianDictionary: string): Promise<CompanionModelFiles> {
  const debian = await readFile(debianDictionary, 'utf8');
  const known = dictionaryWords(debian);
  const added = vocabularyWords(vocabulary).filter((word) => !known.has(word) && word in PRONUNCIATIONS);
  const files = { dictionary: join(dir, 'companion.dict'), languageModel: join(dir, 'companion.arpa') };
  const pronounceable = pronounceableWith(known);
  await writeFile(files.dictionary, debian + added.map((word) => `${word} ${PRONUNCIATIONS[word]}\n`).join(''));
  await writeFile(files.languageModel, companionLanguageModel(vocabulary, pronounceable));
  return files;
}

/** The words a CMU dictionary spells (alternatives such as `read(2)` are the same word). */
export function dictionaryWords(dictionary: string): Set<string> {
  return new Set(dictionary.split('\n').map((line) => line.slice(0, line.indexOf(' ')).replace(/\(\d+\)$/, '')).filter(Boolean));
}

/** Whether the recogniser can say a word: the dictionary spells it (`known`), or PRONUNCIATIONS does. */
function pronounceableWith(known: Set<string>) {
  return (word: string) => known.has(word) || word in PRONUNCIATIONS;
}

/** The vocabulary's words the recogniser could not say (the companion model leaves them out). */
export function unpronounceable(vocabulary: CompanionVocabulary, known: Set<string>): string[] {
  return vocabularyWords(vocabulary).filter((word) => !pronounceableWith(known)(word));
}

/** The ARPA text of the companion model; names or words with a word that cannot be pronounced are left out. */
export function companionLanguageModel(vocabulary: CompanionVocabulary, pronounceable: (word: string) => boolean): string {
  const places = vocabulary.places.filter((name) => name.every(pronounceable));
  const unigrams = new Map<string, number>([...PLACE_CONTEXTS, ...places.flat()].map((word) => [word, CARRIER_LOG_PROB]));
  for (const word of vocabulary.words.filter(pronounceable)) unigrams.set(word, COMPANION_WORD_LOG_PROB);

  const firsts = [...new Set(places.map((name) => name[0]!))];
  const followers = new Map<string, Set<string>>();
  for (const name of places) {
    for (let i = 1; i < name.length; i++) followers.set(name[i - 1]!, (followers.get(name[i - 1]!) ?? new Set()).add(name[i]!));
  }
  const bigrams = new Map<string, number>();
  for (const context of PLACE_CONTEXTS) for (const first of firsts) bigrams.set(`${context} ${first}`, Math.log10(1 / firsts.length));
  for (const [word, next] of followers) for (const following of next) bigrams.set(`${word} ${following}`, Math.log10(1 / next.size));

  const logProb = (value: number) => value.toFixed(4);
  return [
    '\\data\\',
    `ngram 1=${unigrams.size + 2}`,
    `ngram 2=${bigrams.size}`,
    '',
    '\\1-grams:',
    `${IMPOSSIBLE}\t<s>\t0`,
    `${IMPOSSIBLE}\t</s>`,
    ...[...unigrams].map(([word, value]) => `${logProb(value)}\t${word}\t0`),
    '',
    '\\2-grams:',
    ...[...bigrams].map(([pair, value]) => `${logProb(value)}\t${pair}`),
    '',
    '\\end\\',
    '',
  ].join('\n');
}
