/**
 * @module place-name
 *
 * A place as people write it: "Paris", "Paris, France", "Paris, Texas", "Cambridge, Massachusetts, USA".
 * The first part is the name; a later part that names a country narrows the search to that country; any
 * other later part is a region (a state, province or county) the place must lie in.
 */
import { countryCodeOf, normalizeName } from './countries.ts';

export interface PlaceName {
  name: string;
  /** The country a later part names, if one does. */
  countryCode?: string;
  /** The later parts that name no country, normalised (`normalizeName`). */
  regions: string[];
  /** Every later part, normalised: a country's name may be a region's too ("Atlanta, Georgia"). */
  qualifiers: string[];
}

export function parsePlaceName(place: string): PlaceName {
  const [name = place.trim(), ...later] = place.split(',').map((part) => part.trim()).filter(Boolean);
  const countryCode = later.map(countryCodeOf).find(Boolean);
  return {
    name,
    ...(countryCode && { countryCode }),
    regions: later.filter((part) => !countryCodeOf(part)).map(normalizeName),
    qualifiers: later.map(normalizeName),
  };
}
