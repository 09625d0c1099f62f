/**
 * @module place-locator
 *
 * Where "near X" is: a catalogue destination of that name ("near Mount Kailash"), else the offline
 * gazetteer's most populous town of that name, else Open-Meteo's geocoding, so most searches need
 * no network call and a place the gazetteer lacks still works.
 */
import { countryCodeOf, countryNameOf } from './countries.ts';
import { destinationNamed } from './destination-catalogue.ts';
import type { Destination } from './destination-schema.ts';
import { townsNamed } from './gazetteer.ts';
import type { Coordinates } from './great-circle.ts';
import { geocode, type GeocodingOptions } from './open-meteo-client.ts';
import { parsePlaceName } from './place-name.ts';

export interface LocatedPlace extends Coordinates {
  name: string;
  country?: string;
}

/**
 * Undefined when no source knows the place. "Kyoto, Japan" looks only in Japan, and so does "Kyoto" given
 * `inCountry` JP (the country a request asks for). A place in a region ("Cambridge, Massachusetts") is
 * Open-Meteo's to find: neither the catalogue nor the gazetteer names regions, and a namesake on another
 * continent is no answer.
 */
export async function locatePlace(
  place: string,
  destinations: readonly Destination[],
  geocoding: GeocodingOptions,
  inCountry?: string,
): Promise<LocatedPlace | undefined> {
  // A catalogue name may hold a comma itself ("Jama Masjid, Delhi").
  const catalogued = destinationAt(place, destinations);
  if (catalogued) return catalogued;
  const named = parsePlaceName(place);
  const parsed = inCountry && named.qualifiers.length === 0 ? { ...named, countryCode: inCountry } : named;
  const local =
    parsed.regions.length === 0 && (destinationAt(parsed.name, destinations) ?? (await townNamed(parsed.name, parsed.countryCode, destinations)));
  if (local) return local;
  const found = await geocode(parsed, geocoding);
  return found && pick(found, found.country);
}

function destinationAt(name: string, destinations: readonly Destination[]): LocatedPlace | undefined {
  const destination = destinationNamed(name, destinations);
  return destination && pick(destination, destination.country);
}

/**
 * The gazetteer's most populous town of that name, in that country when one is given; no network call. Its country
 * is named as the catalogue names it ("South Korea", not ISO's "Korea, Republic of"), so it reads like the results.
 */
export async function townNamed(
  name: string,
  countryCode: string | undefined,
  destinations: readonly Destination[],
): Promise<LocatedPlace | undefined> {
  const [town] = await townsNamed(name, countryCode);
  return town && pick(town, catalogueCountryNames(destinations).get(town.countryCode) ?? countryNameOf(town.countryCode));
}

const countryNameIndexes = new WeakMap<readonly Destination[], ReadonlyMap<string, string>>();

function catalogueCountryNames(destinations: readonly Destination[]): ReadonlyMap<string, string> {
  let names = countryNameIndexes.get(destinations);
  if (!names) {
    names = new Map(destinations.map(({ country }) => [countryCodeOf(country)!, country]));
    countryNameIndexes.set(destinations, names);
  }
  return names;
}

function pick({ name, latitude, longitude }: LocatedPlace, country: string | undefined): LocatedPlace {
  return { name, latitude, longitude, ...(country && { country }) };
}
