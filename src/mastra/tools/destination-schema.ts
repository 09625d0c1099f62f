/**
 * @module destination-schema
 *
 * The one shape of a spiritual destination: it validates the catalogue JSON at load and types the
 * tool's output. The controlled vocabularies (traditions, kinds, practices) live here as enums so
 * data, search and the model's tool schema cannot drift apart.
 */
import { z } from 'zod';

export const CONTINENTS = ['Africa', 'Asia', 'Europe', 'North America', 'South America', 'Oceania'] as const;
export const ContinentSchema = z.enum(CONTINENTS);
export type Continent = z.infer<typeof ContinentSchema>;

/** Families of faith and practice; a branch below always travels with its family. */
const TRADITION_FAMILIES = [
  'Buddhist',
  'Hindu',
  'Christian',
  'Islamic',
  'Jewish',
  'Sikh',
  'Jain',
  'Taoist',
  'Shinto',
  'Confucian',
  "Bahá'í",
  'Zoroastrian',
  'Indigenous',
  'Ancient',
  'Nature',
  'Secular',
  'Interfaith',
] as const;

/** Each branch and the family it belongs to, so "Buddhist" finds Zen temples too. */
const TRADITION_BRANCHES = {
  Theravada: 'Buddhist',
  Mahayana: 'Buddhist',
  Zen: 'Buddhist',
  'Tibetan Buddhist': 'Buddhist',
  Catholic: 'Christian',
  Orthodox: 'Christian',
  Protestant: 'Christian',
  Anglican: 'Christian',
  Coptic: 'Christian',
  'Ethiopian Orthodox': 'Christian',
  'Armenian Apostolic': 'Christian',
  Sunni: 'Islamic',
  Shia: 'Islamic',
  Sufi: 'Islamic',
} as const satisfies Record<string, (typeof TRADITION_FAMILIES)[number]>;

export const TraditionSchema = z.enum([
  ...TRADITION_FAMILIES,
  ...(Object.keys(TRADITION_BRANCHES) as (keyof typeof TRADITION_BRANCHES)[]),
]);
export type Tradition = z.infer<typeof TraditionSchema>;

export const KindSchema = z.enum([
  'pilgrimage site',
  'holy city',
  'pilgrimage route',
  'temple',
  'shrine',
  'monastery',
  'church',
  'cathedral',
  'mosque',
  'synagogue',
  'gurdwara',
  'ashram',
  'stupa',
  'mausoleum',
  'retreat centre',
  'sacred mountain',
  'sacred lake',
  'sacred river',
  'sacred cave',
  'sacred forest',
  'sacred island',
  'ancient site',
  'nature sanctuary',
]);
export type Kind = z.infer<typeof KindSchema>;

export const PracticeSchema = z.enum([
  'meditation',
  'yoga',
  'silent retreat',
  // Going there as a pilgrim: how the catalogue marks a pilgrimage destination filed under another kind
  // (Mahabodhi is a temple, the Golden Temple a gurdwara); 'pilgrimage walk' is the journey on foot.
  'pilgrimage',
  'pilgrimage walk',
  'hiking',
  'chanting',
  'prayer',
  'liturgy',
  'sacred music',
  'sacred dance',
  'ritual bathing',
  'circumambulation',
  'offerings',
  'fasting',
  'ceremony',
  'festival',
  'study',
  'seva',
  'monastic stay',
  'forest bathing',
  'contemplation',
  'healing',
]);
export type Practice = z.infer<typeof PracticeSchema>;

/** The farthest a remote site may declare from its nearest town; beyond it the town says nothing useful. */
const MAX_DECLARED_DISTANCE_KM = 300;

const text = (min: number, max: number) => z.string().trim().min(min).max(max);

export const DestinationSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'kebab-case ASCII slug'),
    name: text(2, 120),
    aliases: z
      .array(text(2, 120))
      .optional()
      .describe('Other names and spellings people ask for it by, e.g. "Ayers Rock" for Uluru; searched as the name'),
    country: text(2, 60).describe('Country, common English name'),
    region: ContinentSchema.describe('Continent'),
    nearestTown: text(2, 80).describe('Nearest town of at least 1000 people'),
    traditions: z.array(TraditionSchema).min(1),
    kind: KindSchema,
    description: text(20, 400),
    practices: z.array(PracticeSchema).min(1).describe('What a visitor can do or join there'),
    bestSeason: text(3, 120).describe('When the weather or the calendar suits a visit'),
    visitorNotes: text(10, 400).describe('Dress, etiquette, permits, fees, access'),
    latitude: z.number().min(-90).max(90).describe('Decimal degrees, WGS 84'),
    longitude: z.number().min(-180).max(180).describe('Decimal degrees, WGS 84'),
    source: text(2, 160).describe('English Wikipedia article title or Wikidata id'),
    prominence: z
      .union([z.literal(2), z.literal(3)])
      .optional()
      .describe('How widely known the place is, for ranking: 3 a tradition\'s best-known places, 2 famous ones; 1 when left out'),
    maxDistanceKm: z
      .number()
      .positive()
      .max(MAX_DECLARED_DISTANCE_KM)
      .optional()
      .describe('How far the site may lie from nearestTown, for remote sites'),
  })
  .strict()
  .superRefine((destination, context) => {
    for (const [index, tradition] of destination.traditions.entries()) {
      const family = familyOf(tradition);
      if (family !== tradition && !destination.traditions.includes(family)) {
        context.addIssue({ code: 'custom', path: ['traditions', index], message: `${tradition} must be listed with ${family}` });
      }
    }
  });
export type Destination = z.infer<typeof DestinationSchema>;

export const DestinationMatchSchema = DestinationSchema.safeExtend({
  distanceKm: z.number().nonnegative().optional().describe('Great-circle distance from the place searched near, in km'),
});
export type DestinationMatch = z.infer<typeof DestinationMatchSchema>;

export function familyOf(tradition: Tradition): Tradition {
  return TRADITION_BRANCHES[tradition as keyof typeof TRADITION_BRANCHES] ?? tradition;
}
