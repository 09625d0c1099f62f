/**
 * Writes src/stt/data/companion-pronunciations.json: a pronunciation for every word of the companion
 * vocabulary (place names, destination words) that Debian's PocketSphinx dictionary lacks, made by flite's
 * letter-to-sound rules (`t2p`) and mapped onto the CMU phone set. Run after adding places to the catalogue:
 *
 *   npm run stt:pronunciations
 *
 * Needs Debian's flite and pocketsphinx-en-us (build time only: the service reads the JSON).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dictionaryWords, PRONUNCIATIONS } from '../src/stt/companion-model.ts';
import { companionVocabulary, vocabularyWords } from '../src/stt/companion-vocabulary.ts';
import { modelFiles } from '../src/mastra/public/stt/pocketsphinx.ts';

const DEBIAN_MODEL = '/usr/share/pocketsphinx/model/en-us';
/** flite's phones that CMU spells otherwise (the rest are the same, in lower case, with stress digits). */
const FLITE_TO_CMU: Record<string, string> = { ax: 'AH', axr: 'ER' };

function fliteToCmu(word: string): string {
  const phones = execFileSync('t2p', [word], { encoding: 'utf8' }).trim().split(/\s+/);
  return phones
    .filter((phone) => phone !== 'pau')
    .map((phone) => phone.replace(/\d$/, ''))
    .map((phone) => FLITE_TO_CMU[phone] ?? phone.toUpperCase())
    .join(' ');
}

const known = dictionaryWords(readFileSync(modelFiles(DEBIAN_MODEL).dictionary, 'utf8'));
// Pronunciations already there (perhaps corrected by hand) are kept; words no longer in the vocabulary go.
const missing = vocabularyWords(companionVocabulary()).filter((word) => !known.has(word)).sort();
const pronunciations = Object.fromEntries(missing.map((word) => [word, PRONUNCIATIONS[word] ?? fliteToCmu(word)]));
writeFileSync(new URL('../src/stt/data/companion-pronunciations.json', import.meta.url), `${JSON.stringify(pronunciations, null, 1)}\n`);
console.log(`${missing.filter((word) => !(word in PRONUNCIATIONS)).length} pronunciations made, ${missing.length} in all`);
