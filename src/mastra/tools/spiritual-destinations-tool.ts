/**
 * @module spiritual-destinations-tool
 *
 * The agent's way into the destination catalogue: structured filters and/or a request in plain
 * words, optionally near a place. It reads the request, locates the place, and searches.
 */
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { countryCodeOf } from './countries.ts';
import { DESTINATIONS, destinationNamed } from './destination-catalogue.ts';
import { parseQuery, type ParsedQuery } from './destination-query.ts';
import {
  ContinentSchema,
  DestinationMatchSchema,
  KindSchema,
  PracticeSchema,
  TraditionSchema,
} from './destination-schema.ts';
import { createDestinationSearch } from './destination-search.ts';
import type { Criterion } from './destination-vocabulary.ts';
import { locatePlace, townNamed } from './place-locator.ts';
import { MAX_PLACE_NAME_LENGTH } from './place-name.ts';
import { ToolFailure } from './tool-failure.ts';

export interface SpiritualDestinationsToolOptions {
  /** Open-Meteo geocoding base URL, without a trailing slash; asked only for places the gazetteer lacks. */
  geocodingUrl: string;
  /** Limit for that request. */
  timeoutMs: number;
}

const DEFAULT_LIMIT = 5;
const DEFAULT_RADIUS_KM = 100;
/** "Churches in Rome" is a search near Rome: its sites lie within a city's reach of its centre. */
const IN_TOWN_RADIUS_KM = 30;
const MAX_RADIUS_KM = 2000;
const SERVICE = 'Geocoding service';

const InputSchema = z.object({
  query: z
    .string()
    .trim()
    .max(300)
    .optional()
    .describe(
      'The request in plain words, e.g. "Zen temple in Japan", "silent retreat in Thailand", "Sufi shrines near Delhi" ' +
        'or a place name such as "Tiger\'s Nest"; traditions, kinds, practices, countries, continents, "near <place>" and "in <town>" are understood',
    ),
  tradition: TraditionSchema.optional().describe('Only places of this tradition; a family such as "Buddhist" includes its branches'),
  kind: KindSchema.optional().describe('Only places of this kind'),
  practice: PracticeSchema.optional().describe('Only places where a visitor can do this'),
  country: z.string().trim().min(2).max(60).optional().describe('Only places in this country, English name, e.g. "Japan"'),
  continent: ContinentSchema.optional().describe('Only places on this continent'),
  near: z
    .string()
    .trim()
    .min(2)
    .max(MAX_PLACE_NAME_LENGTH)
    .optional()
    .describe('A town, city or landmark to search around, e.g. "Kyoto" or "Kyoto, Japan"; results are sorted by distance'),
  radiusKm: z
    .number()
    .positive()
    .max(MAX_RADIUS_KM)
    .optional()
    .describe(`How far from the "near" place to search, ${DEFAULT_RADIUS_KM} km when left out`),
  // Optional rather than `.default()`, so direct callers' types do not demand it either.
  limit: z.number().int().min(1).max(20).optional().describe(`Most destinations to return, ${DEFAULT_LIMIT} when left out`),
});

const OutputSchema = z.object({
  destinations: z
    .array(DestinationMatchSchema)
    .describe('Best match first; nearest first for a search near a place, each with its distanceKm'),
  total: z.number().int().describe('How many destinations matched before the limit was applied'),
  understood: z
    .object({
      criteria: z.array(z.string()).describe('The filters applied, as asked for, e.g. ["zen", "temple", "japan"]'),
      near: z
        .object({
          name: z.string(),
          country: z.string().optional(),
          latitude: z.number(),
          longitude: z.number(),
          radiusKm: z.number(),
        })
        .optional()
        .describe('The place searched around'),
      ignoredWords: z.array(z.string()).describe('Words of the query that matched no destination and were ignored'),
    })
    .describe('How the request was read, so the answer can say what was and was not searched for'),
});

/** Builds the destinations tool; the caller passes the Open-Meteo settings from the service config. */
export function createSpiritualDestinationsTool(options: SpiritualDestinationsToolOptions) {
  const search = createDestinationSearch(DESTINATIONS);
  return createTool({
    id: 'spiritualDestinationsTool',
    description:
      'Find spiritual destinations in a curated catalogue of real places: pilgrimage sites, temples, shrines, ' +
      'monasteries, churches, mosques, synagogues, gurdwaras, ashrams, retreat centres, sacred mountains, lakes and ' +
      'forests of every tradition on every continent. Each result has a description, practices, best season, ' +
      'visitor notes and coordinates (pass them to weatherTool).',
    inputSchema: InputSchema,
    outputSchema: OutputSchema,
    execute: async (input, { abortSignal }) => {
      const parsed = queryOf(input.query ?? '');
      const criteria = [...criteriaOf(input), ...parsed.criteria];
      const near = input.near ?? parsed.near?.place;
      const inTown = !near && parsed.town ? await townNamed(parsed.town.name, requestedCountry(criteria), DESTINATIONS) : undefined;
      // A radius in the words is held to the field's bounds: at most MAX_RADIUS_KM, and a zero one means the default.
      const radiusKm =
        input.radiusKm ?? (Math.min(parsed.near?.radiusKm ?? 0, MAX_RADIUS_KM) || (inTown ? IN_TOWN_RADIUS_KM : DEFAULT_RADIUS_KM));
      const place = near
        ? await locatePlace(near, DESTINATIONS, { ...options, service: SERVICE, abortSignal }, requestedCountry(criteria))
        : inTown;
      if (near && !place) {
        throw new ToolFailure(`Place "${near}" was not found; after a comma, name its country or region (e.g. "Kyoto, Japan")`, 'not-found');
      }
      // Dropped without a word, it read as if the whole catalogue were within that distance.
      if (input.radiusKm !== undefined && !place) {
        throw new ToolFailure('radiusKm needs a place to search around: give near, or "near <place>" in the query', 'invalid-input');
      }
      const searchAround = (around: typeof place, freeWords: string[]) =>
        search({ criteria, freeWords, near: around && { ...around, radiusKm }, limit: input.limit ?? DEFAULT_LIMIT });
      let answer = searchAround(place, inTown ? parsed.freeWords.filter((word) => !parsed.town!.words.includes(word)) : parsed.freeWords);
      let searchedAround = place;
      // A town of that name with nothing around it is likely another place's namesake ("mosques in Andalusia" is no
      // search around Andalusia, Alabama): its name is then words of the request, as any other.
      if (inTown && answer.total === 0) {
        answer = searchAround(undefined, parsed.freeWords);
        searchedAround = undefined;
      }
      return {
        destinations: answer.destinations,
        total: answer.total,
        understood: {
          // "Native American" is a tradition and a continent, but one thing asked for.
          criteria: [...new Set(criteria.map((criterion) => criterion.label))],
          ...(searchedAround && { near: { ...searchedAround, radiusKm } }),
          ignoredWords: answer.ignoredWords,
        },
      };
    },
  });
}

/**
 * A query that is a destination's own name asks for that place ("Montserrat Abbey", "Hill of Crosses"): read word by
 * word, its words would name a country or a kind of place it is not (Montserrat is a country too, a hill a mountain).
 */
function queryOf(text: string): ParsedQuery {
  const named = destinationNamed(text);
  return named ? { criteria: [{ label: named.name, ids: [named.id] }], freeWords: [] } : parseQuery(text);
}

/**
 * "Córdoba" in a request for places in Spain is the Córdoba in Spain, not the larger one in Argentina: the one
 * country the request asks for, if it asks for one, is where a place named without its own is looked for.
 */
function requestedCountry(criteria: readonly Criterion[]): string | undefined {
  const requested = new Set(criteria.flatMap((criterion) => criterion.countryCodes ?? []));
  return requested.size === 1 ? [...requested][0] : undefined;
}

function criteriaOf({ tradition, kind, practice, country, continent }: z.infer<typeof InputSchema>): Criterion[] {
  const criteria: Criterion[] = [];
  if (tradition) criteria.push({ label: tradition, traditions: [tradition] });
  if (kind) criteria.push({ label: kind, kinds: [kind] });
  if (practice) criteria.push({ label: practice, practices: [practice] });
  if (country) criteria.push({ label: country, countryCodes: [countryCodeOfInput(country)] });
  if (continent) criteria.push({ label: continent, continents: [continent] });
  return criteria;
}

function countryCodeOfInput(country: string): string {
  const code = countryCodeOf(country);
  // Regions such as "Tibet" or "Middle East" belong in the query, which understands them.
  if (!code) throw new ToolFailure(`"${country}" is not a country name; put regions in the query instead`, 'invalid-input');
  return code;
}
