/**
 * @module place-locator
 *
 * Where "near X" is: a catalogue destination of that name ("near Mount Kailash"), else the offline
 * gazetteer's most populous town of that name, else Open-Meteo's geocoding, so most searches need
 * no network call and a place the gazetteer lacks still works.
 */
import { countryCodeOf, countryNameOf, normalizeName } from './countries.ts';
import type { Destination } from './destination-schema.ts';
import { townsNamed } from './gazetteer.ts';
import type { Coordinates } from './great-circle.ts';
import { geocode, type GeocodingOptions } from './open-meteo-client.ts';

export interface LocatedPlace extends Coordinates {
  name: string;
  country?: string;
}

/**
 * Undefined when no source knows the place. "Kyoto, Japan" looks only in Japan. What follows a comma and is no
 * country ("Cambridge, Massachusetts") cannot be checked by any source here: rather than answer with a namesake on
 * another continent, the place is not found, and the tool asks for a country.
 */
export async function locatePlace(
  place: string,
  destinations: readonly Destination[],
  geocoding: GeocodingOptions,
): Promise<LocatedPlace | undefined> {
  // A catalogue name may hold a comma itself ("Jama Masjid, Delhi").
  const catalogued = destinationNamed(place, destinations);
  if (catalogued) return catalogued;
  const [name = place, ...qualifiers] = place.split(',').map((part) => part.trim());
  const countryCode = qualifiers.map(countryCodeOf).find(Boolean);
  if (qualifiers.length > 0 && !countryCode) return undefined;
  return destinationNamed(name, destinations) ?? (await townNamed(name, countryCode)) ?? (await geocode(name, { ...geocoding, countryCode }));
}

function destinationNamed(name: string, destinations: readonly Destination[]): LocatedPlace | undefined {
  const wanted = normalizeName(name);
  const destination = destinations.find((candidate) => normalizeName(candidate.name) === wanted);
  return destination && pick(destination, destination.country);
}

async function townNamed(name: string, countryCode: string | undefined): Promise<LocatedPlace | undefined> {
  const [town] = await townsNamed(name, countryCode);
  return town && pick(town, countryNameOf(town.countryCode));
}

function pick({ name, latitude, longitude }: LocatedPlace, country: string | undefined): LocatedPlace {
  return { name, latitude, longitude, ...(country && { country }) };
}
