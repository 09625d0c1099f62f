import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import {
  CONTINENTS,
  DESTINATION_KINDS,
  SPIRITUAL_DESTINATIONS,
  type SpiritualDestination,
} from './spiritual-destinations.ts';

const DestinationSchema = z.object({
  name: z.string(),
  country: z.string(),
  region: z.enum(CONTINENTS).describe('Continent'),
  traditions: z.array(z.string()),
  kind: z.enum(DESTINATION_KINDS),
  description: z.string(),
  bestSeason: z.string().describe('When the weather or the calendar suits a visit'),
  latitude: z.number().describe('Decimal degrees, WGS 84'),
  longitude: z.number().describe('Decimal degrees, WGS 84'),
});

type Destination = z.infer<typeof DestinationSchema>;

const DEFAULT_LIMIT = 5;

// Words that would otherwise match nearly every description.
const IGNORED_WORDS = new Set(['a', 'an', 'and', 'at', 'for', 'in', 'near', 'of', 'on', 'or', 'the', 'to', 'with']);

export const spiritualDestinationsTool = createTool({
  id: 'spiritualDestinationsTool',
  description:
    'Find spiritual destinations (pilgrimage sites, temples, monasteries, sacred mountains, retreat centres) in a curated ' +
    'catalogue, by free text, continent or tradition. Each result has its country and coordinates, ' +
    'useful for checking the weather there.',
  inputSchema: z.object({
    query: z
      .string()
      .optional()
      .describe(
        'Free text, e.g. "Buddhist monastery" or "Japan"; matches any word of the name, country, traditions, kind or description',
      ),
    region: z.enum(CONTINENTS).optional().describe('Only destinations on this continent'),
    tradition: z
      .string()
      .optional()
      .describe('Only destinations of this tradition, e.g. "Buddhism", "Catholic", "Sufi"'),
    // Optional rather than `.default()`, so direct callers' types do not demand it either.
    limit: z
      .number()
      .int()
      .min(1)
      .max(10)
      .optional()
      .describe(`Most destinations to return, ${DEFAULT_LIMIT} when left out`),
  }),
  outputSchema: z.object({
    destinations: z.array(DestinationSchema).describe('Best matches first'),
    total: z.number().int().describe('How many destinations matched before the limit was applied'),
  }),
  execute: async ({ query, region, tradition, limit = DEFAULT_LIMIT }) => {
    const queryStems = stemsOf(query ?? '');
    const traditionStems = stemsOf(tradition ?? '');
    const matches = SPIRITUAL_DESTINATIONS.map((destination, catalogueIndex) => ({
      destination,
      catalogueIndex,
      score: countMatchedStems(queryStems, searchableWordsOf(destination)),
    }))
      .filter(({ destination }) => !region || destination.region === region)
      .filter(({ destination }) => matchesEveryStem(traditionStems, wordsOf(destination.traditions.join(' '))))
      .filter(({ score }) => queryStems.length === 0 || score > 0)
      .sort((a, b) => b.score - a.score || a.catalogueIndex - b.catalogueIndex);
    return {
      destinations: matches.slice(0, limit).map(({ destination }) => toDestination(destination)),
      total: matches.length,
    };
  },
});

function searchableWordsOf(destination: SpiritualDestination): string[] {
  const { name, country, traditions, kind, description } = destination;
  return wordsOf([name, country, ...traditions, kind, description].join(' '));
}

/** Lower-case words without accents, so "Taize" finds "Taizé" and "Maori" finds "Māori". */
function wordsOf(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/\p{Mark}/gu, '')
    .toLowerCase()
    .split(/[^\p{Letter}\p{Number}]+/u)
    .filter(Boolean);
}

function stemsOf(text: string): string[] {
  const words = wordsOf(text).filter((word) => !IGNORED_WORDS.has(word));
  return [...new Set(words.map(stemOf))];
}

/**
 * Cuts common endings so that, matched as a word prefix, "Buddhist" finds
 * "Buddhism", "temples" finds "temple" and "monasteries" finds "monastery".
 * Short words are kept whole: their stems would match too much.
 */
function stemOf(word: string): string {
  const stem = word.replace(/(?:isms?|ists?|ies|ic|es|s|y)$/, '');
  return stem.length >= 4 ? stem : word;
}

function matchesStem(stem: string, words: readonly string[]): boolean {
  return words.some((word) => word.startsWith(stem));
}

function countMatchedStems(stems: readonly string[], words: readonly string[]): number {
  return stems.filter((stem) => matchesStem(stem, words)).length;
}

function matchesEveryStem(stems: readonly string[], words: readonly string[]): boolean {
  return stems.every((stem) => matchesStem(stem, words));
}

// A copy, so callers cannot mutate the shared catalogue through the result.
function toDestination(destination: SpiritualDestination): Destination {
  return { ...destination, traditions: [...destination.traditions] };
}
