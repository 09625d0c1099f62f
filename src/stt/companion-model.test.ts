/**
 * The companion vocabulary and language model, from the catalogue alone. That every word can be pronounced with
 * Debian's dictionary, and the files written on top of it, are in companion-model.system.test.ts; that the
 * recogniser then hears the places, in local-engine.system.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { companionLanguageModel } from './companion-model.ts';
import { companionVocabulary, spokenWords } from './companion-vocabulary.ts';

const vocabulary = companionVocabulary();

describe('companion vocabulary', () => {
  it('holds the catalogue places as spoken words, with the spellings people use', () => {
    const names = vocabulary.places.map((words) => words.join(' '));
    expect(names).toEqual(expect.arrayContaining(['varanasi', 'rishikesh', 'buddh gaya', 'bodh gaya', 'kathmandu']));
    expect(vocabulary.words).toEqual(expect.arrayContaining(['ashram', 'vipassana', 'dargah']));
    expect(spokenWords("Notre Dame d'Afrique, Djenné")).toEqual(['notre', 'dame', "d'afrique", 'djenne']);
  });
});

describe('companion model files', () => {
  it('leaves out a place with a word it cannot pronounce', () => {
    const arpa = companionLanguageModel({ places: [['lhasa'], ['xqzt', 'temple']], words: [] }, (word) => word !== 'xqzt');
    expect(arpa).toContain('\tin lhasa');
    expect(arpa).not.toContain('xqzt');
  });
});
