import { isValidationError } from '@mastra/core/tools';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openMeteoPlace, startOpenMeteoStandIn, type OpenMeteoStandIn } from '../../../tests/fixtures/open-meteo-stand-in.ts';
import { execute, outputOf } from '../../../tests/fixtures/run-tool.ts';
import { createSpiritualDestinationsTool } from './spiritual-destinations-tool.ts';

/** A landmark the offline gazetteer does not list as a town, so only Open-Meteo can place it. */
const KATHMANDU_VALLEY = {
  geocoding: {
    id: 9_000_001,
    name: 'Kathmandu Valley',
    latitude: 27.7,
    longitude: 85.33,
    elevation: 1400,
    feature_code: 'VAL',
    country_code: 'NP',
    timezone: 'Asia/Kathmandu',
    country: 'Nepal',
  },
  current: { temperature_2m: 21, apparent_temperature: 21, relative_humidity_2m: 60, wind_speed_10m: 5, wind_gusts_10m: 9, weather_code: 1 },
};

describe('spiritualDestinationsTool', () => {
  /** Open-Meteo's two Cambridges: the more populous in England, the other in Massachusetts. */
  const knowTheCambridges = () => {
    standIn.places.set('cambridge', openMeteoPlace({ name: 'Cambridge', latitude: 52.2, longitude: 0.11667, country_code: 'GB', country: 'United Kingdom', admin1: 'England', population: 145818 }));
    standIn.places.set('cambridge, massachusetts', openMeteoPlace({ name: 'Cambridge', latitude: 42.3751, longitude: -71.10561, country_code: 'US', country: 'United States', admin1: 'Massachusetts', admin2: 'Middlesex', population: 118403 }));
  };

  let standIn: OpenMeteoStandIn;
  let tool: ReturnType<typeof createSpiritualDestinationsTool>;

  beforeAll(async () => {
    standIn = await startOpenMeteoStandIn();
    tool = createSpiritualDestinationsTool({ geocodingUrl: standIn.geocodingUrl, timeoutMs: 1_000 });
  });
  afterAll(() => standIn.close());
  beforeEach(() => {
    standIn.reset();
    standIn.places.set('kathmandu valley', KATHMANDU_VALLEY);
  });

  it('is registered under the id the agent instructions use', () => {
    expect(tool.id).toBe('spiritualDestinationsTool');
  });

  it('answers a plain request with catalogue places and says how it read it', async () => {
    const output = await outputOf(tool, { query: 'Zen temple in Japan', limit: 3 });

    expect(output.destinations).toHaveLength(3);
    expect(output.total).toBeGreaterThan(3);
    expect(output.destinations[0]).toMatchObject({ country: 'Japan', kind: 'temple', traditions: ['Buddhist', 'Zen'] });
    expect(output.destinations[0]).toHaveProperty('visitorNotes');
    expect(output.understood).toEqual({ criteria: ['zen', 'temple', 'japan'], ignoredWords: [] });
  });

  it('applies structured filters, alone or with a request', async () => {
    const output = await outputOf(tool, { tradition: 'Sikh', country: 'Pakistan', limit: 10 });
    expect(output.destinations.map(({ id }) => id).sort()).toEqual([
      'gurdwara-darbar-sahib-kartarpur',
      'gurdwara-janam-asthan',
    ]);
    const withQuery = await outputOf(tool, { query: 'birthplace of Guru Nanak', country: 'Pakistan', limit: 1 });
    expect(withQuery.destinations.map(({ id }) => id)).toEqual(['gurdwara-janam-asthan']);
  });

  it('places "near" a town offline, sorted by distance, without calling Open-Meteo', async () => {
    const output = await outputOf(tool, { query: 'Shinto shrines', near: 'Kyoto', radiusKm: 100 });

    expect(output.destinations.map(({ id, distanceKm }) => [id, distanceKm])).toEqual([
      ['fushimi-inari-taisha', 6.2],
      ['kasuga-taisha', 38.8],
    ]);
    expect(output.understood.near).toEqual({ name: 'Kyoto', country: 'Japan', latitude: 35.02107, longitude: 135.75385, radiusKm: 100 });
    expect(standIn.requests).toEqual([]);
    // The country's ISO code after a comma, as people abbreviate it, is the same place.
    expect((await outputOf(tool, { query: 'Shinto shrines', near: 'Kyoto, JP', radiusKm: 100 })).understood.near).toEqual(output.understood.near);
  });

  it.each([
    ['Seoul', 'South Korea'],
    ['Luang Prabang', 'Laos'],
    ['Damascus', 'Syria'],
    ['Vatican City', 'Vatican City'],
    ['Canterbury', 'United Kingdom'],
  ])('names the country of "near %s" as the results do: %s', async (near, country) => {
    const output = await outputOf(tool, { near, radiusKm: 50 });
    expect(output.understood.near?.country).toBe(country);
    expect(output.destinations.map((destination) => destination.country)).toContain(country);
  });

  it('reads "near X within N km" out of the request itself', async () => {
    const output = await outputOf(tool, { query: 'monasteries within 30 km of Kathmandu, Nepal' });

    expect(output.understood.near).toMatchObject({ name: 'Kathmandu', country: 'Nepal', radiusKm: 30 });
    expect(output.destinations.map(({ id }) => id)).toContain('kopan-monastery');
    expect(output.destinations.every(({ distanceKm }) => distanceKm! <= 30)).toBe(true);
  });

  it.each([
    ['churches in Rome', 'Rome', 'Italy', 'st-peters-basilica'],
    ['Christian sites in Jerusalem', 'Jerusalem', 'Israel', 'church-of-the-holy-sepulchre'],
    ['Christian sites in Jerusalem please', 'Jerusalem', 'Israel', 'church-of-the-holy-sepulchre'],
    ['Golden Temple in Amritsar', 'Amritsar', 'India', 'golden-temple'],
    ['churches in Santiago de Compostela', 'Santiago de Compostela', 'Spain', 'santiago-de-compostela-cathedral'],
  ])('reads "%s" as a search within 30 km of the town', async (query, town, country, expectedId) => {
    const output = await outputOf(tool, { query, limit: 20 });

    expect(output.understood.near).toMatchObject({ name: town, country, radiusKm: 30 });
    expect(output.destinations[0]?.id).toBe(expectedId);
    expect(output.destinations.every(({ distanceKm }) => distanceKm! <= 30)).toBe(true);
    expect(output.understood.ignoredWords).toEqual([]);
    expect(standIn.requests).toEqual([]);
  });

  it.each([
    ['mosques in Andalusia', 'mosques'],
    ['churches in Cappadocia', 'churches'],
  ])('reads "%s" as words when the town of that name has nothing around it (a namesake far away)', async (query, kind) => {
    const output = await outputOf(tool, { query, limit: 20 });

    // The gazetteer's most populous Andalusia is in Alabama, its Cappadocia in Italy: no search around them.
    expect(output.understood.near).toBeUndefined();
    expect(output.understood.criteria).toEqual([kind]);
    expect(output.total).toBeGreaterThan(0);
  });

  it('reads a country or region after "in" as that, and a name no town has as words', async () => {
    expect((await outputOf(tool, { query: 'Zen temple in Japan' })).understood.near).toBeUndefined();
    expect((await outputOf(tool, { query: 'temples in Tibet' })).understood.near).toBeUndefined();
    const unknown = await outputOf(tool, { query: 'churches in Xqzvburg' });
    expect(unknown.understood).toEqual({ criteria: ['churches'], ignoredWords: ['xqzvburg'] });
    expect(standIn.requests).toEqual([]);
  });

  // Read word by word, these names asked for a country (Montserrat, Israel) or a kind of place (a "wat" is a temple,
  // a hill a mountain) that the place itself is not: 0 results, or others.
  it.each([
    ['Montserrat Abbey', 'montserrat-abbey', 'Santa Maria de Montserrat Abbey'],
    ['Kahal Zur Israel Synagogue', 'kahal-zur-israel-synagogue', 'Kahal Zur Israel Synagogue'],
    ['Wat Pah Nanachat', 'wat-pah-nanachat', 'Wat Pah Nanachat'],
    ['the hill of crosses', 'hill-of-crosses', 'Hill of Crosses'],
  ])('answers a query that is a destination\'s own name (%s) with that destination', async (query, id, name) => {
    const output = await outputOf(tool, { query });
    expect(output.destinations.map((destination) => destination.id)).toEqual([id]);
    expect(output.understood).toEqual({ criteria: [name], ignoredWords: [] });
  });

  it('searches near a catalogue destination by its name', async () => {
    const output = await outputOf(tool, { near: 'Mount Kailash', radiusKm: 50 });

    expect(output.destinations.map(({ id, distanceKm }) => [id, distanceKm])).toEqual([
      ['mount-kailash', 0],
      ['lake-manasarovar', 48.2],
    ]);
    expect(standIn.requests).toEqual([]);
  });

  it('finds the monasteries near Mount Athos, Mount Athos first', async () => {
    const output = await outputOf(tool, { query: 'monasteries near Mount Athos' });
    expect(output.destinations.map(({ id, distanceKm }) => [id, distanceKm])[0]).toEqual(['mount-athos', 0]);
  });

  it.each([
    ['Bodhgaya', 'mahabodhi-temple'],
    ['Ayers Rock', 'uluru'],
  ])('searches near a catalogue destination by another of its names: %s', async (near, expectedId) => {
    const output = await outputOf(tool, { near, radiusKm: 5 });
    expect(output.destinations.map(({ id, distanceKm }) => [id, distanceKm])[0]).toEqual([expectedId, 0]);
    expect(standIn.requests).toEqual([]);
  });

  it('finds a gazetteer town written with or without its spaces', async () => {
    for (const near of ['Kuala Lumpur', 'Kualalumpur', 'Luang Prabang', 'Luangprabang']) {
      const output = await outputOf(tool, { near, radiusKm: 10 });
      expect(output.understood.near?.name, near).toMatch(/^(Kuala Lumpur|Luang Prabang)$/);
    }
    expect(standIn.requests).toEqual([]);
  });

  it('asks Open-Meteo for a place the gazetteer does not know', async () => {
    const output = await outputOf(tool, { query: 'stupas', near: 'Kathmandu Valley', radiusKm: 25 });

    expect(standIn.requests).toEqual([
      { path: '/v1/search', query: { name: 'Kathmandu Valley', count: '1', language: 'en', format: 'json' } },
    ]);
    expect(output.understood.near).toEqual({ name: 'Kathmandu Valley', country: 'Nepal', latitude: 27.7, longitude: 85.33, radiusKm: 25 });
    expect(output.destinations.map(({ id }) => id)).toEqual(['boudhanath', 'swayambhunath']);
  });

  it('fails clearly when no one knows the place', async () => {
    // (Atlantis would not do: the gazetteer knows a town of that name near Cape Town.)
    await expect(execute(tool, { near: 'Xanadu Hollow' })).rejects.toThrow('Place "Xanadu Hollow" was not found');
    expect(standIn.requests.map(({ query }) => query.name)).toEqual(['Xanadu Hollow']);
  });

  it('finds "City, Region" in that region, not its namesake on another continent', async () => {
    knowTheCambridges();

    const output = await outputOf(tool, { near: 'Cambridge, Massachusetts', radiusKm: 50 });
    expect(output.understood.near).toEqual({ name: 'Cambridge', country: 'United States', latitude: 42.3751, longitude: -71.10561, radiusKm: 50 });
    expect(standIn.requests.map(({ query }) => query)).toEqual([{ name: 'Cambridge', count: '10', language: 'en', format: 'json' }]);

    await expect(execute(tool, { near: 'Cambridge, Ontario' })).rejects.toThrow(
      'Place "Cambridge, Ontario" was not found; after a comma, name its country or region (e.g. "Kyoto, Japan")',
    );
  });

  it.each([
    ['with its country in the query', { query: 'mosques near Córdoba, Spain' }],
    ['in the country the query asks for', { query: 'mosques near Córdoba in Spain' }],
    ['in the country the filter asks for', { query: 'mosques', near: 'Córdoba', country: 'Spain' }],
  ])('finds a place named %s there, not its larger namesake elsewhere', async (_, input) => {
    const output = await outputOf(tool, input);
    expect(output.understood.near).toMatchObject({ name: 'Córdoba', country: 'Spain' });
    expect(output.destinations.map(({ id }) => id)).toEqual(['mosque-cathedral-of-cordoba']);
    expect(standIn.requests).toEqual([]);
  });

  it('asks Open-Meteo for a place in the country the query names', async () => {
    standIn.places.set('santiago', openMeteoPlace({ name: 'Santiago', latitude: -33.45694, longitude: -70.64827, country_code: 'CL', country: 'Chile', population: 4_837_295 }));
    standIn.places.set('santiago, galicia', openMeteoPlace({ name: 'Santiago', latitude: 42.88052, longitude: -8.54569, country_code: 'ES', country: 'Spain', admin1: 'Galicia', population: 95_092 }));

    const output = await outputOf(tool, { query: 'churches near Santiago, Spain' });
    expect(standIn.requests.map(({ query }) => query)).toEqual([{ name: 'Santiago', count: '1', language: 'en', format: 'json', countryCode: 'ES' }]);
    expect(output.understood.near).toMatchObject({ name: 'Santiago', country: 'Spain' });
    expect(output.destinations.map(({ id }) => id)).toContain('santiago-de-compostela-cathedral');
  });

  it('reads "near City, Region" in the query as that region\'s city', async () => {
    knowTheCambridges();

    const output = await outputOf(tool, { query: 'Buddhist temples near Cambridge, Massachusetts' });
    expect(output.understood).toMatchObject({ criteria: ['buddhist', 'temples'], near: { name: 'Cambridge', country: 'United States' } });
  });

  it('asks for a place the gazetteer lacks in its country, then in a region of that name, before it says it is not found', async () => {
    await expect(execute(tool, { near: 'Xanadu Hollow, Japan' })).rejects.toThrow('was not found');
    expect(standIn.requests.map(({ query }) => query)).toEqual([
      { name: 'Xanadu Hollow', count: '1', language: 'en', format: 'json', countryCode: 'JP' },
      { name: 'Xanadu Hollow', count: '10', language: 'en', format: 'json' },
    ]);
  });

  it('searches near a catalogue destination whose name holds a comma', async () => {
    const output = await outputOf(tool, { near: 'Jama Masjid, Delhi', radiusKm: 5 });
    expect(output.destinations.map(({ id, distanceKm }) => [id, distanceKm])[0]).toEqual(['jama-masjid-delhi', 0]);
  });

  it('refuses a radius with no place to search around', async () => {
    await expect(execute(tool, { query: 'Zen temples', radiusKm: 50 })).rejects.toThrow('radiusKm needs a place to search around');
    expect((await outputOf(tool, { query: 'Zen temples near Kyoto', radiusKm: 50 })).understood.near?.radiusKm).toBe(50);
  });

  it('holds a radius given in words to the same bounds as the field', async () => {
    expect((await outputOf(tool, { query: 'temples within 5000 km of Delhi' })).understood.near).toMatchObject({ radiusKm: 2000 });
    expect((await outputOf(tool, { query: 'temples within 0 km of Delhi' })).understood.near).toMatchObject({ radiusKm: 100 });
  });

  it('fails clearly when the geocoding service fails', async () => {
    standIn.failNext(503);
    await expect(execute(tool, { near: 'Kathmandu Valley' })).rejects.toThrow('Geocoding service answered 503');
  });

  it('refuses a country name it does not know instead of ignoring it', async () => {
    await expect(execute(tool, { country: 'Atlantis' })).rejects.toThrow('"Atlantis" is not a country name');
  });

  it.each([
    ['Viet Nam', 'Vietnam'],
    ['Burma', 'Myanmar'],
    ['Bosnia', 'Bosnia and Herzegovina'],
  ])('takes the country name "%s" as %s', async (name, country) => {
    const output = await outputOf(tool, { country: name, limit: 20 });
    expect(output.total).toBeGreaterThan(0);
    expect(output.destinations.every((destination) => destination.country === country)).toBe(true);
  });

  it.each(['pagoda in Burma', 'Burmese pagoda'])('reads the country in "%s"', async (query) => {
    const output = await outputOf(tool, { query, limit: 20 });
    expect(output.destinations.map(({ id }) => id)).toContain('shwedagon-pagoda');
    expect(output.destinations.every(({ country }) => country === 'Myanmar')).toBe(true);
  });

  it.each([
    ['Native American sacred sites', ['native american']],
    ['Maori sacred mountain', ['maori', 'sacred mountain']],
    ['Zoroastrian fire temple in Iran', ['zoroastrian', 'fire temple', 'iran']],
  ])('says once each thing "%s" asked for', async (query, criteria) => {
    expect((await outputOf(tool, { query })).understood.criteria).toEqual(criteria);
  });

  it('returns nothing, not a guess, for nonsense', async () => {
    expect(await outputOf(tool, { query: 'xqzv blorft' })).toEqual({
      destinations: [],
      total: 0,
      understood: { criteria: [], ignoredWords: [] },
    });
  });

  it('rejects values outside its vocabularies and limits before searching', async () => {
    expect(isValidationError(await execute(tool, { limit: 21 }))).toBe(true);
    expect(isValidationError(await execute(tool, { tradition: 'Buddhism' as 'Buddhist' }))).toBe(true);
    expect(isValidationError(await execute(tool, { near: 'Kyoto', radiusKm: 5000 }))).toBe(true);
    expect(standIn.requests).toEqual([]);
  });
});
