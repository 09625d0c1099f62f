/**
 * @module What the local speech engine should recognise beyond everyday English: the places in the
 * destination catalogue (names and nearest towns, as sequences of spoken words) and the words the
 * destination search understands ("ashram", "dargah", "vipassana"). Built from the same data the tools
 * use, so a place added to the catalogue is recognised too once it has a pronunciation
 * (`npm run stt:pronunciations`).
 */
import { DESTINATIONS } from '../mastra/tools/destination-catalogue.ts';
import { PHRASES } from '../mastra/tools/destination-vocabulary.ts';

export interface CompanionVocabulary {
  /** Place names, each as its spoken words: `['bodh', 'gaya']`. */
  places: string[][];
  /** Single words said in any context. */
  words: string[];
}

/** Spellings people use for catalogue places that the catalogue spells otherwise. */
const PLACE_ALIASES = ['Bodh Gaya', 'Dharamshala'];

/** Lower-case words without accents or punctuation, as a recogniser's dictionary spells them. */
export function spokenWords(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^a-z']+/g, ' ')
    .split(' ')
    .map((word) => word.replace(/^'+|'+$/g, ''))
    .filter(Boolean);
}

export function companionVocabulary(): CompanionVocabulary {
  const names = [...DESTINATIONS.flatMap((place) => [place.name, place.nearestTown]), ...PLACE_ALIASES];
  const places = [...new Map(names.map((name) => spokenWords(name)).filter((words) => words.length > 0).map((words) => [words.join(' '), words])).values()];
  const words = [...new Set(PHRASES.flatMap(([phrases]) => phrases.flatMap(spokenWords)))];
  return { places, words };
}

/** Every word of the vocabulary, once. */
export function vocabularyWords(vocabulary: CompanionVocabulary): string[] {
  return [...new Set([...vocabulary.places.flat(), ...vocabulary.words])];
}
