/**
 * @module destination-search
 *
 * Filters and ranks catalogue destinations. Criteria (from structured filters or a parsed request)
 * decide what qualifies; MiniSearch's field-weighted BM25 decides the order, so a name match
 * outranks a passing mention in a description; a search near a place keeps what lies within the
 * radius and orders it by distance. Pure: the place to search near arrives as coordinates.
 */
import MiniSearch from 'minisearch';
import { stemmer } from 'stemmer';
import { countryCodeOf, normalizeName } from './countries.ts';
import { singularOf } from './destination-query.ts';
import type { Destination, DestinationMatch } from './destination-schema.ts';
import { STOP_WORDS, namesPlaces, type Area, type Criterion } from './destination-vocabulary.ts';
import { haversineKm, type Coordinates } from './great-circle.ts';

export interface CatalogueQuery {
  /** Every one must be met. */
  criteria: readonly Criterion[];
  /** Words that named no criterion; they narrow the results when any qualifying destination has them. */
  freeWords: readonly string[];
  near?: Coordinates & { radiusKm: number };
  limit: number;
}

export interface CatalogueAnswer {
  /** Best match first, or nearest first for a search near a place. */
  destinations: DestinationMatch[];
  /** How many destinations qualified before the limit. */
  total: number;
  /** Free words no qualifying destination has, so they played no part. */
  ignoredWords: string[];
}

export type DestinationSearch = (query: CatalogueQuery) => CatalogueAnswer;

/** How much a query word found in each field counts: the name says most about what a place is. */
const FIELD_BOOSTS = { name: 5, aliases: 5, nearestTown: 3, traditions: 2, kind: 2, country: 2, region: 1, practices: 1.5, description: 1 };

/** How much more a place of each prominence counts than an unremarkable one with the same words. */
const PROMINENCE_BOOSTS: Record<number, number> = { 1: 1, 2: 2.5, 3: 8 };

interface IndexedDestination {
  destination: Destination;
  countryCode: string | undefined;
  nameWords: ReadonlySet<string>;
}

export function createDestinationSearch(destinations: readonly Destination[]): DestinationSearch {
  const indexed = new Map(destinations.map((destination) => [destination.id, indexEntryOf(destination)]));
  const fullText = createFullTextIndex(destinations);

  return ({ criteria, freeWords, near, limit }) => {
    const qualifying = [...indexed.values()].filter((entry) => criteria.every((criterion) => meets(entry, criterion)));
    const wordHits = scoresOf(fullText, freeWords.join(' '));
    const withWords = qualifying.filter(({ destination }) => wordHits.has(destination.id));
    // Words narrow what the criteria found when they can; with no criterion they are the whole
    // request, so a word nothing has ("xqzv") finds nothing.
    const wordsCount = freeWords.length > 0 && (withWords.length > 0 || criteria.length === 0);
    const candidates = wordsCount ? withWords : qualifying;
    const ignoredWords = wordsCount ? [] : [...freeWords];
    const relevance = scoresOf(fullText, rankingText(criteria, freeWords));
    const ranked = candidates
      .map(({ destination }) => ({ destination, score: relevance.get(destination.id) ?? 0 }))
      .sort((a, b) => b.score - a.score || (b.destination.prominence ?? 1) - (a.destination.prominence ?? 1));
    const matches = near ? byDistance(ranked, near) : ranked.map(({ destination }) => ({ ...destination }));
    return { destinations: matches.slice(0, limit), total: matches.length, ignoredWords };
  };
}

/**
 * What the order is decided by: the words as asked, and the traditions they stand for ("Aboriginal" is Indigenous).
 * Places are filters only: every candidate is in the country asked for, and "Africa" must not favour South Africa.
 */
function rankingText(criteria: readonly Criterion[], freeWords: readonly string[]): string {
  const asked = criteria.filter((criterion) => !namesPlaces(criterion));
  return [...asked.flatMap(({ label, traditions = [] }) => [label, ...traditions]), ...freeWords].join(' ');
}

function indexEntryOf(destination: Destination): IndexedDestination {
  return {
    destination,
    countryCode: countryCodeOf(destination.country),
    nameWords: new Set(normalizeName(destination.name).split(' ').map(singularOf)),
  };
}

function meets({ destination, countryCode, nameWords }: IndexedDestination, criterion: Criterion): boolean {
  return (
    (criterion.traditions?.some((tradition) => destination.traditions.includes(tradition)) ||
      criterion.kinds?.includes(destination.kind) ||
      criterion.practices?.some((practice) => destination.practices.includes(practice)) ||
      (countryCode !== undefined && criterion.countryCodes?.includes(countryCode)) ||
      criterion.continents?.includes(destination.region) ||
      criterion.areas?.some((area) => area.countryCode === countryCode && liesIn(destination, area)) ||
      criterion.nameWords?.some((word) => nameWords.has(word)) ||
      criterion.ids?.includes(destination.id)) ??
    false
  );
}

function liesIn({ latitude, longitude }: Coordinates, { south, north, west, east }: Area): boolean {
  return latitude >= south && latitude <= north && longitude >= west && longitude <= east;
}

function byDistance(ranked: ReadonlyArray<{ destination: Destination }>, near: Coordinates & { radiusKm: number }): DestinationMatch[] {
  return ranked
    .map(({ destination }) => ({ ...destination, distanceKm: Math.round(haversineKm(near, destination) * 10) / 10 }))
    .filter(({ distanceKm }) => distanceKm <= near.radiusKm)
    .sort((a, b) => a.distanceKm - b.distanceKm);
}

function createFullTextIndex(destinations: readonly Destination[]) {
  const index = new MiniSearch<Destination>({
    fields: Object.keys(FIELD_BOOSTS),
    extractField: (destination, field) => {
      const value = destination[field as keyof Destination];
      return Array.isArray(value) ? value.join(' ') : String(value ?? '');
    },
    tokenize: (text) => normalizeName(text).split(' '),
    processTerm: termOf,
    storeFields: ['prominence'],
    searchOptions: {
      boost: FIELD_BOOSTS,
      // The best-known places first among equals: "Sikh" is the Golden Temple before a gurdwara in California.
      // (Stored through extractField, so as text: "" when the place has none.)
      boostDocument: (_id, _term, stored) => PROMINENCE_BOOSTS[Number(stored?.prominence) || 1]!,
      combineWith: 'OR',
      // Prefixes let "medit" find "meditation", but not a stem of four letters a town's name (Gangtok) begins with
      // ("ganges" stems to "gang"); one typo is forgiven in longer words ("budhist").
      prefix: (term) => term.length >= 5,
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
    },
  });
  index.addAll(destinations);
  return index;
}

/** Lower case, accents and apostrophes gone (by the tokenizer), stemmed: "Temples" and "temple" are one term. */
function termOf(word: string): string | null {
  if (word.length < 2 || STOP_WORDS.has(word)) return null;
  return stemmer(word);
}

/**
 * BM25 scores weighted by how many of the query's words a place matched (Lucene's "coord"), so
 * "Anangu sacred rock in the desert" prefers the place with all three words over "Cathedral Rock".
 */
function scoresOf(index: MiniSearch<Destination>, text: string): Map<string, number> {
  return new Map(index.search(text).map(({ id, score, queryTerms }) => [id as string, score * queryTerms.length]));
}
