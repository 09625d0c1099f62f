/**
 * The companion model's files on Debian's dictionary: every word of the vocabulary can be pronounced, and the
 * language model expects a place name where one is introduced. (That the recogniser then hears the places is in
 * local-engine.system.test.ts.) Needs Debian's pocketsphinx-en-us: without it this test fails.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { modelFiles } from '../mastra/public/stt/pocketsphinx.ts';
import { dictionaryWords, unpronounceable, writeCompanionModel } from './companion-model.ts';
import { companionVocabulary } from './companion-vocabulary.ts';

const DEBIAN_DICTIONARY = modelFiles('/usr/share/pocketsphinx/model/en-us').dictionary;
const vocabulary = companionVocabulary();
const scratch = await mkdtemp(join(tmpdir(), 'companion-model-test-'));
afterAll(() => rm(scratch, { recursive: true, force: true }));

describe('companion vocabulary', () => {
  it('can all be pronounced: each word is in Debian\'s dictionary or has a pronunciation (npm run stt:pronunciations)', async () => {
    const known = dictionaryWords(await readFile(DEBIAN_DICTIONARY, 'utf8'));
    expect(unpronounceable(vocabulary, known)).toEqual([]);
  });
});

describe('companion model files', () => {
  it('the dictionary is Debian\'s plus the missing words; the language model follows place-introducing words with places', async () => {
    const files = await writeCompanionModel(scratch, vocabulary, DEBIAN_DICTIONARY);
    const debian = await readFile(DEBIAN_DICTIONARY, 'utf8');
    const dictionary = await readFile(files.dictionary, 'utf8');
    expect(dictionary.startsWith(debian)).toBe(true);
    expect(dictionary.slice(debian.length)).toMatch(/^varanasi V AA R AA N AA S IY$/m);

    const arpa = await readFile(files.languageModel, 'utf8');
    expect(arpa).toMatch(/^-\d+\.\d{4}\tin varanasi$/m);
    expect(arpa).toMatch(/^-?\d+\.\d{4}\tbodh gaya$/m);
    // Its header counts what it holds.
    const [, unigrams, bigrams] = arpa.match(/ngram 1=(\d+)\nngram 2=(\d+)/)!;
    const section = (name: string) => arpa.split(`\\${name}:\n`)[1]!.split('\n\n')[0]!.split('\n');
    expect(section('1-grams')).toHaveLength(Number(unigrams));
    expect(section('2-grams')).toHaveLength(Number(bigrams));
  });
});
