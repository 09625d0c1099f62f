/**
 * @module destination-query
 *
 * Reads a request in plain words ("a Zen temple in Japan", "Sufi shrines within 50 km of Delhi")
 * into criteria the catalogue can be filtered by, a place to search near, and the words left over
 * for full-text ranking. Pure: no I/O, so every reading can be unit-tested.
 */
import { countryCodeOf, countryNames, normalizeName } from './countries.ts';
import { familyOf } from './destination-schema.ts';
import { PHRASES, STOP_WORDS, namesPlaces, type Criterion, type CriterionSpec } from './destination-vocabulary.ts';

export interface NearRequest {
  /** The place as written, e.g. "Kyoto" or "Santiago de Compostela". */
  place: string;
  radiusKm?: number;
}

export interface ParsedQuery {
  /** Every criterion must be met; each is met by any of its alternatives. */
  criteria: Criterion[];
  near?: NearRequest;
  /** Words that named no criterion, for full-text ranking ("garden", "Kyoto", "Tiger's Nest"). */
  freeWords: string[];
  /**
   * A name after "in" that is no country or region the vocabulary knows ("churches in Rome"): a town to search
   * in if the gazetteer knows it, its words free words otherwise. Its words are also among `freeWords`.
   */
  town?: { name: string; words: string[] };
}

/** Country names that are also everyday words ("show us temples"). */
const AMBIGUOUS_COUNTRY_NAMES = new Set(['us', 'u s', 'u s a']);
/** "U.S." and "U.S.A." with their dots are never the pronoun, wherever they stand ("U.S. temples"). */
const DOTTED_UNITED_STATES = /(?:\bthe\s+)?(?<![\p{L}\p{N}])u\.\s?s\.(?:\s?a\b\.?)?/giu;
/**
 * After a preposition, "US" in capitals or "the us" in any case can only be the country ("in the us", "across
 * the USA"); "around us" is no place (see NOT_PLACES).
 */
const UNITED_STATES_AFTER_PREPOSITION = /\b(in|across|around|throughout)\s+(the\s+)?(usa?)\b/giu;

function withUnitedStatesNamed(text: string): string {
  return text
    .replace(DOTTED_UNITED_STATES, 'the United States ')
    .replace(UNITED_STATES_AFTER_PREPOSITION, (match, preposition: string, the: string | undefined, name: string) =>
      the || name === name.toUpperCase() ? `${preposition} the United States` : match,
    );
}

const LONGEST_PHRASE_WORDS = 4;

const CRITERIA_BY_PHRASE: ReadonlyMap<string, readonly CriterionSpec[]> = buildPhraseIndex();

function buildPhraseIndex(): Map<string, readonly CriterionSpec[]> {
  const index = new Map<string, readonly CriterionSpec[]>();
  for (const name of countryNames()) {
    const code = countryCodeOf(name);
    if (code && !AMBIGUOUS_COUNTRY_NAMES.has(name)) index.set(name, [{ countryCodes: [code] }]);
  }
  // The vocabulary wins over country names: "Georgia" stays a country, "Tibet" is a region.
  for (const [phrases, criteria] of PHRASES) for (const phrase of phrases) index.set(phrase, criteria);
  return index;
}

const UNIT_TO_KM: Record<string, number> = { km: 1, kms: 1, kilometre: 1, kilometres: 1, kilometer: 1, kilometers: 1, mi: 1.609344, mile: 1.609344, miles: 1.609344 };
const DISTANCE = String.raw`(\d+(?:\.\d+)?)\s*(kms?|kilomet(?:re|er)s?|mi|miles?)\b`;
const PLACE = String.raw`(?:the\s+)?([^,.;!?]+?)`;
const PLACE_END = String.raw`(?=\s+(?:within|in|for|with|that|which|where|and)\b|\s*[,.;!?]|\s*$)`;
/** "within 50 km of X", "50 km from X", "less than 50 km from X", "in a 50 km radius of X". */
const WITHIN_OF = new RegExp(
  String.raw`(?:\b(?:within|less than|under|up to|at most|no more than)\s+|\bin\s+an?\s+|\b)${DISTANCE}\s+(?:radius\s+)?(?:of|from|around)\s+${PLACE}${PLACE_END}`,
  'iu',
);
const NEAR = new RegExp(String.raw`\b(?:near|nearby|around|close to|next to|not far from|outside)\s+${PLACE}${PLACE_END}`, 'iu');
const RADIUS = new RegExp(String.raw`\bwithin\s+${DISTANCE}`, 'iu');
/** "in Rome", "in Santiago de Compostela": a name that starts and ends with a capital. */
const IN_NAME = new RegExp(String.raw`\bin\s+(?:the\s+)?(\p{Lu}[^,.;!?]*?)${PLACE_END}`, 'u');
/** A part after a comma that may say where the place lies: "Córdoba, Spain". */
const QUALIFIER = new RegExp(String.raw`^\s*,\s*([^,.;!?]+?)${PLACE_END}`, 'u');

export function parseQuery(text: string): ParsedQuery {
  const { near, rest } = extractNear(withUnitedStatesNamed(text));
  const { criteria, freeWords } = readWords(normalizeName(rest).split(' ').filter(Boolean));
  const town = near ? undefined : townNamedIn(rest);
  return { criteria: mergeAlternatives(criteria), near, freeWords, ...(town && { town }) };
}

function townNamedIn(text: string): ParsedQuery['town'] {
  // The name ends at its last capitalised word: "in Jerusalem please" names Jerusalem.
  const words = IN_NAME.exec(text)?.[1]?.trim().split(/\s+/) ?? [];
  while (words.length > 0 && !/^\p{Lu}/u.test(words.at(-1)!)) words.pop();
  const name = words.join(' ');
  if (!name || namesARegion(name)) return undefined;
  const { criteria, freeWords } = readWords(normalizeName(name).split(' '));
  return criteria.length === 0 && freeWords.length > 0 ? { name, words: freeWords } : undefined;
}

/** Takes "near X" or "within N km of X" out of the text, unless X is a country, a region ("around Japan") or no place at all. */
function extractNear(text: string): { near?: NearRequest; rest: string } {
  const withinOf = WITHIN_OF.exec(text);
  if (withinOf) {
    const [, amount, unit, name] = withinOf;
    const { place, phrase } = withQualifiers(text, withinOf, name);
    return { near: { place, radiusKm: toKm(amount, unit) }, rest: text.replace(phrase, ' ') };
  }
  const near = NEAR.exec(text);
  if (!near || namesARegion(near[1])) return { rest: text.replace(RADIUS, ' ') };
  const { place, phrase } = withQualifiers(text, near, near[1]);
  const radius = RADIUS.exec(text);
  const rest = text.replace(phrase, ' ').replace(RADIUS, ' ');
  return { near: { place, ...(radius && { radiusKm: toKm(radius[1], radius[2]) }) }, rest };
}

/**
 * The place with the parts after its commas that say where it lies ("Córdoba, Spain", "Cambridge,
 * Massachusetts"), so it is looked for there; other parts ("Kathmandu, please") go on with the request.
 */
function withQualifiers(text: string, match: RegExpExecArray, name: string): { place: string; phrase: string } {
  let place = name.trim();
  let end = match.index + match[0].length;
  let qualifier: RegExpExecArray | null;
  while ((qualifier = QUALIFIER.exec(text.slice(end))) && namesWhereAPlaceLies(qualifier[1])) {
    place += `, ${qualifier[1].trim()}`;
    end += qualifier[0].length;
  }
  return { place, phrase: text.slice(match.index, end) };
}

/** A country, or a region's proper name: capitalised, and no word of the request ("Delhi, Sufi"). */
function namesWhereAPlaceLies(part: string): boolean {
  if (countryCodeOf(part)) return true;
  const normalized = normalizeName(part);
  const capitalised = part.trim().split(/\s+/).every((word) => /^\p{Lu}/u.test(word));
  return capitalised && !CRITERIA_BY_PHRASE.has(normalized) && !STOP_WORDS.has(normalized);
}

function toKm(amount: string, unit: string): number {
  return Number(amount) * UNIT_TO_KM[unit.toLowerCase()]!;
}

/** "around the world" and "near me" name no place to measure from. */
const NOT_PLACES = new Set(['world', 'globe', 'me', 'us', 'here']);

function namesARegion(place: string): boolean {
  if (NOT_PLACES.has(normalizeName(place))) return true;
  const criteria = CRITERIA_BY_PHRASE.get(normalizeName(place));
  return criteria !== undefined && criteria.every(namesPlaces);
}

/** Longest known phrase first at each position; what matches nothing and is no stop word is free text. */
function readWords(words: readonly string[]): { criteria: Criterion[]; freeWords: string[] } {
  const criteria: Criterion[] = [];
  const freeWords: string[] = [];
  for (let start = 0; start < words.length; ) {
    const match = longestPhraseAt(words, start);
    if (match) {
      criteria.push(...match.criteria.map((spec) => ({ label: match.phrase, ...spec })));
      start += match.length;
      continue;
    }
    const word = words[start]!;
    if (!STOP_WORDS.has(word) && !/^\d+$/.test(word)) freeWords.push(word);
    start += 1;
  }
  return { criteria, freeWords };
}

function longestPhraseAt(words: readonly string[], start: number) {
  for (let length = Math.min(LONGEST_PHRASE_WORDS, words.length - start); length > 0; length--) {
    const phrase = words.slice(start, start + length);
    const last = phrase.at(-1)!;
    for (const ending of new Set([last, singularOf(last)])) {
      const candidate = [...phrase.slice(0, -1), ending].join(' ');
      const criteria = CRITERIA_BY_PHRASE.get(candidate);
      if (criteria) return { phrase: phrase.join(' '), criteria, length };
    }
  }
  return undefined;
}

/** Enough English plurals for the vocabulary: monasteries, churches, temples. */
export function singularOf(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (/(?:ch|sh|ss|x)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

type Dimension = 'tradition' | 'kind' | 'place';

/**
 * Several traditions, kinds or places in one request are alternatives: "Buddhist or Hindu
 * temples in Nepal or Bhutan". A branch named with its family narrows it: "Zen Buddhist" is Zen.
 */
function mergeAlternatives(criteria: readonly Criterion[]): Criterion[] {
  const groups = new Map<Dimension, Criterion[]>();
  const others: Criterion[] = [];
  for (const criterion of criteria) {
    const dimension = dimensionOf(criterion);
    if (dimension) groups.set(dimension, [...(groups.get(dimension) ?? []), criterion]);
    else others.push(criterion);
  }
  const merged = [...groups.entries()].map(([dimension, group]) =>
    dimension === 'tradition' ? mergeTraditions(group) : mergeCriteria(group),
  );
  return [...merged, ...others];
}

function dimensionOf(criterion: Criterion): Dimension | undefined {
  const { traditions, kinds, nameWords, practices } = criterion;
  const places = namesPlaces(criterion);
  if (practices) return undefined;
  if (traditions && !kinds && !places) return 'tradition';
  if (kinds && !traditions && !places) return 'kind';
  if (places && !traditions && !kinds && !nameWords) return 'place';
  return undefined;
}

function mergeTraditions(group: readonly Criterion[]): Criterion {
  const named = group.flatMap((criterion) => criterion.traditions ?? []);
  const impliedFamilies = new Set(named.filter((tradition) => familyOf(tradition) !== tradition).map(familyOf));
  return mergeCriteria(group.filter((criterion) => !criterion.traditions!.every((tradition) => impliedFamilies.has(tradition))));
}

function mergeCriteria(all: readonly Criterion[]): Criterion {
  // "Zoroastrian fire temple" names the tradition twice: one label for it, not "zoroastrian or fire temple".
  const group = all.filter((criterion, index) => !all.slice(0, index).some((earlier) => sameSpec(earlier, criterion)));
  if (group.length === 1) return group[0]!;
  const merged: Criterion = { label: group.map((criterion) => criterion.label).join(' or ') };
  for (const key of ['traditions', 'kinds', 'nameWords', 'countryCodes', 'continents', 'areas'] as const) {
    const values = [...new Set(group.flatMap((criterion): readonly unknown[] => criterion[key] ?? []))];
    if (values.length > 0) Object.assign(merged, { [key]: values });
  }
  return merged;
}

function sameSpec({ label: _, ...spec }: Criterion, { label: __, ...other }: Criterion): boolean {
  return JSON.stringify(spec) === JSON.stringify(other);
}
