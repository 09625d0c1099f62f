/**
 * @module place-name
 *
 * A place as people write it: "Paris", "Paris, France", "Paris, Texas", "Cambridge, Massachusetts, USA",
 * "Paris, TX", "Kyoto, JP". The first part is the name; a later part that names a country (or is its ISO
 * code) narrows the search to that country; any other later part is a region (a state, province or
 * county) the place must lie in, a US state's postal abbreviation standing for its name.
 */
import { countryCodeAbbreviated, countryCodeOf, normalizeName } from './countries.ts';
import usStates from './data/us-states.json' with { type: 'json' };

/** The longest place name the tools take: a name, not a paragraph, to send to Open-Meteo and quote back. */
export const MAX_PLACE_NAME_LENGTH = 100;

/** "TX" → "texas": regions are compared by their normalised names. */
const US_STATES: ReadonlyMap<string, string> = new Map(Object.entries(usStates).map(([code, name]) => [code, normalizeName(name)]));

export interface PlaceName {
  name: string;
  /** The country a later part names, if one does. */
  countryCode?: string;
  /** The later parts that name no country, normalised (`normalizeName`). */
  regions: string[];
  /** Every later part as a region, normalised: a country's name or code may be a region's too ("Atlanta, Georgia", "Moscow, ID"). */
  qualifiers: string[];
}

export function parsePlaceName(place: string): PlaceName {
  const [name = place.trim(), ...later] = place.split(',').map((part) => part.trim()).filter(Boolean);
  const parts = later.map((part) => ({ country: countryOfPart(part), region: regionOfPart(part) }));
  const countryCode = parts.find(({ country }) => country)?.country;
  return {
    name,
    ...(countryCode && { countryCode }),
    regions: parts.filter(({ country }) => !country).map(({ region }) => region),
    qualifiers: parts.map(({ region }) => region),
  };
}

function countryOfPart(part: string): string | undefined {
  return countryCodeOf(part) ?? countryCodeAbbreviated(part);
}

function regionOfPart(part: string): string {
  return US_STATES.get(part.toUpperCase()) ?? normalizeName(part);
}
