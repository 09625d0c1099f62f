/**
 * @module countries
 *
 * Country names to ISO 3166-1 alpha-2 codes, so the catalogue's plain English country names can be
 * checked against the gazetteer and recognised in what people type ("a monastery in Greece").
 */
import { createRequire } from 'node:module';
// The bare library: the package's Node entry loads all of its 78 locales (about 1.5 MB of heap at
// start-up), and only English is needed.
import countries from 'i18n-iso-countries/index.js';

countries.registerLocale(createRequire(import.meta.url)('i18n-iso-countries/langs/en.json'));

/**
 * Everyday names the package only knows in their official form ("Syrian Arab Republic"),
 * and the home nations people name instead of the United Kingdom.
 */
const EVERYDAY_NAMES: Record<string, string> = {
  syria: 'SY',
  laos: 'LA',
  'viet nam': 'VN',
  burma: 'MM',
  bosnia: 'BA',
  'vatican city': 'VA',
  vatican: 'VA',
  moldova: 'MD',
  brunei: 'BN',
  macau: 'MO',
  'east timor': 'TL',
  micronesia: 'FM',
  england: 'GB',
  scotland: 'GB',
  wales: 'GB',
  'northern ireland': 'GB',
  britain: 'GB',
  holland: 'NL',
  america: 'US',
  'the netherlands': 'NL',
  'the philippines': 'PH',
};

/** Letters that Unicode does not decompose into a base letter and an accent. */
const UNDECOMPOSED_LETTERS: Record<string, string> = { ı: 'i', ł: 'l', ø: 'o', đ: 'd', ð: 'd', æ: 'ae', œ: 'oe', ß: 'ss', þ: 'th' };

/** Lower case without accents or apostrophes, so "Türkiye", "turkiye" and "Cote d'Ivoire" compare equal. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{Mark}/gu, '')
    .replace(/['’ʻ`]/g, '')
    .toLowerCase()
    .replace(/[ıłøđðæœßþ]/g, (letter) => UNDECOMPOSED_LETTERS[letter]!)
    .replace(/[^\p{Letter}\p{Number}]+/gu, ' ')
    .trim();
}

const CODE_BY_NAME: ReadonlyMap<string, string> = new Map([
  ...Object.entries(countries.getNames('en', { select: 'all' })).flatMap(([code, names]) =>
    names.map((name): [string, string] => [normalizeName(name), code]),
  ),
  ...Object.entries(EVERYDAY_NAMES),
]);

/** The ISO 3166-1 alpha-2 code of a country name in English, or undefined when it names no country. */
export function countryCodeOf(name: string): string | undefined {
  return CODE_BY_NAME.get(normalizeName(name));
}

/** The code itself when `text` is an ISO 3166-1 alpha-2 code ("JP", "fr"), as people abbreviate a country after a comma. */
export function countryCodeAbbreviated(text: string): string | undefined {
  const code = text.toUpperCase();
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code) ? code : undefined;
}

/** Every known country name, normalised, for recognising countries inside free text. */
export function countryNames(): IterableIterator<string> {
  return CODE_BY_NAME.keys();
}

/** The English short name of a country code, e.g. "Japan" for JP. */
export function countryNameOf(code: string): string | undefined {
  return countries.getName(code, 'en', { select: 'alias' });
}
