import { isValidationError } from '@mastra/core/tools';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWeatherTool } from '../src/mastra/tools/weather-tool.ts';
import { describeWeatherCode } from '../src/mastra/tools/wmo-weather-codes.ts';
import { openMeteoPlace, PARIS_WEATHER, startOpenMeteoStandIn, weatherToolResultAt, type OpenMeteoStandIn } from './fixtures/open-meteo-stand-in.ts';
import { execute, outputOf } from './fixtures/run-tool.ts';

function weatherToolFor(service: OpenMeteoStandIn, timeoutMs: number) {
  return createWeatherTool({ geocodingUrl: service.geocodingUrl, forecastUrl: service.forecastUrl, timeoutMs });
}

const CURRENT_VARIABLES =
  'temperature_2m,apparent_temperature,relative_humidity_2m,wind_speed_10m,wind_gusts_10m,weather_code';

describe('weatherTool', () => {
  let standIn: OpenMeteoStandIn;
  let weatherTool: ReturnType<typeof createWeatherTool>;

  beforeAll(async () => {
    standIn = await startOpenMeteoStandIn();
    weatherTool = weatherToolFor(standIn, 1_000);
  });
  afterAll(() => standIn.close());
  beforeEach(() => standIn.reset());

  it('is registered under the id the agent instructions use', () => {
    expect(weatherTool.id).toBe('weatherTool');
  });

  it('maps the current conditions of the geocoded place', async () => {
    expect(await outputOf(weatherTool, { location: 'Paris' })).toEqual(PARIS_WEATHER);
  });

  it('reports the weather at any coordinates, as Open-Meteo does', async () => {
    const weather = await outputOf(weatherTool, { location: 'Meteora', latitude: 39.7217, longitude: 21.6306 });
    expect(weather).toEqual(weatherToolResultAt('Meteora', 39.7217, 21.6306));
  });

  it('uses given coordinates as they are, without a name lookup', async () => {
    const weather = await outputOf(weatherTool, { location: 'Kashi Vishwanath Temple', latitude: 25.31668, longitude: 83.01041 });
    expect(weather).toMatchObject({ location: 'Kashi Vishwanath Temple', temperature: 33.6, conditions: 'Thunderstorm' });
    expect(standIn.requests.map((r) => r.path)).toEqual(['/v1/forecast']);
    expect(standIn.requests[0].query).toMatchObject({ latitude: '25.31668', longitude: '83.01041' });
  });

  it('looks a place up in the country named after a comma', async () => {
    expect(await outputOf(weatherTool, { location: 'Paris, France' })).toEqual(PARIS_WEATHER);
    expect(standIn.requests[0].query).toMatchObject({ name: 'Paris', countryCode: 'FR', count: '1' });
    expect(await outputOf(weatherTool, { location: 'Paris, United States' })).toMatchObject({ temperature: 31.4, location: 'Paris, United States' });
  });

  it('picks the namesake in the region named after a comma: "Paris, Texas" is not Paris, France', async () => {
    expect(await outputOf(weatherTool, { location: 'Paris, Texas' })).toMatchObject({ temperature: 31.4, conditions: 'Mainly clear', location: 'Paris, United States' });
    expect(standIn.requests[0].query).toEqual({ name: 'Paris', count: '10', language: 'en', format: 'json' });
    expect(await outputOf(weatherTool, { location: 'Paris, Lamar, Texas, USA' })).toMatchObject({ location: 'Paris, United States' });
    await expect(execute(weatherTool, { location: 'Paris, Ontario' })).rejects.toThrow('Location "Paris, Ontario" was not found');
  });

  it('reads a US state\'s postal abbreviation as the state, and a country\'s ISO code as the country ("Paris, TX", "Paris, FR")', async () => {
    expect(await outputOf(weatherTool, { location: 'Paris, TX' })).toMatchObject({ temperature: 31.4, location: 'Paris, United States' });
    expect(await outputOf(weatherTool, { location: 'Paris, FR' })).toEqual(PARIS_WEATHER);
    expect(standIn.requests.filter(({ path }) => path === '/v1/search').map(({ query }) => [query.countryCode, query.count])).toEqual([
      [undefined, '10'],
      ['FR', '1'],
    ]);
  });

  it('takes a country name that no such place is in as a region of that name ("Atlanta, Georgia")', async () => {
    standIn.places.set('atlanta', openMeteoPlace({ name: 'Atlanta', latitude: 33.749, longitude: -84.38798, country_code: 'US', country: 'United States', admin1: 'Georgia', population: 498715 }));
    expect(await outputOf(weatherTool, { location: 'Atlanta, Georgia' })).toMatchObject({ location: 'Atlanta, United States' });
    expect(standIn.requests.filter(({ path }) => path === '/v1/search').map(({ query }) => [query.countryCode, query.count])).toEqual([
      ['GE', '1'],
      [undefined, '10'],
    ]);
  });

  it('geocodes the name, then asks for the forecast at the coordinates found', async () => {
    const weather = await outputOf(weatherTool, { location: 'Varanasi' });

    expect(weather).toMatchObject({ temperature: 33.6, conditions: 'Thunderstorm', location: 'Varanasi, India' });
    expect(standIn.requests).toEqual([
      { path: '/v1/search', query: { name: 'Varanasi', count: '1', language: 'en', format: 'json' } },
      { path: '/v1/forecast', query: { latitude: '25.31668', longitude: '83.01041', current: CURRENT_VARIABLES } },
    ]);
  });

  it('follows weather changes and maps the code to words', async () => {
    standIn.setWeather('Paris', {
      temperature_2m: -2.4,
      apparent_temperature: -7.9,
      relative_humidity_2m: 91,
      wind_speed_10m: 22.1,
      wind_gusts_10m: 47.5,
      weather_code: 73,
    });

    expect(await outputOf(weatherTool, { location: 'paris' })).toEqual({
      temperature: -2.4,
      feelsLike: -7.9,
      humidity: 91,
      windSpeed: 22.1,
      windGust: 47.5,
      conditions: 'Moderate snowfall',
      location: 'Paris, France',
    });
  });

  it('names the place alone when it has no country, and sends names with spaces and accents intact', async () => {
    standIn.places.set('base dumont d’urville', {
      geocoding: {
        id: 6696480,
        name: 'Base Dumont d’Urville',
        latitude: -66.66278,
        longitude: 140.00139,
        elevation: 42,
        feature_code: 'STNB',
        country_code: 'AQ',
        timezone: 'Antarctica/DumontDUrville',
      },
      current: {
        temperature_2m: -11.2,
        apparent_temperature: -18.6,
        relative_humidity_2m: 67,
        wind_speed_10m: 31.3,
        wind_gusts_10m: 58.4,
        weather_code: 71,
      },
    });

    const weather = await outputOf(weatherTool, { location: 'Base Dumont d’Urville' });

    expect(weather.location).toBe('Base Dumont d’Urville');
    expect(weather.conditions).toBe('Slight snowfall');
    expect(standIn.requests[0]?.query.name).toBe('Base Dumont d’Urville');
  });

  it('says which location was not found, without asking for a forecast', async () => {
    await expect(execute(weatherTool, { location: 'Atlantis' })).rejects.toThrow('Location "Atlantis" was not found');
    expect(standIn.requests.map(({ path }) => path)).toEqual(['/v1/search']);
  });

  it('reports the HTTP status when the service fails', async () => {
    standIn.failNext(503);
    await expect(execute(weatherTool, { location: 'Paris' })).rejects.toThrow('Weather service answered 503');
  });

  it('gives up after the configured timeout', async () => {
    const impatientTool = weatherToolFor(standIn, 50);
    // Far beyond the test's own timeout: only the tool's timeout can end this call in time.
    standIn.delayMs = 60_000;

    await expect(execute(impatientTool, { location: 'Paris' })).rejects.toThrow(
      'Weather service did not answer within 50 ms',
    );
  });

  it('stops as soon as the agent run is aborted', async () => {
    standIn.delayMs = 1_000;
    const run = new AbortController();
    setTimeout(() => run.abort(), 20);

    await expect(execute(weatherTool, { location: 'Paris' }, run.signal)).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('says so when the service cannot be reached', async () => {
    const closedService = await startOpenMeteoStandIn();
    await closedService.close();
    const strandedTool = weatherToolFor(closedService, 1_000);

    await expect(execute(strandedTool, { location: 'Paris' })).rejects.toThrow('Weather service could not be reached');
  });

  it('refuses a blank location before calling the service', async () => {
    const result = await execute(weatherTool, { location: '   ' });

    expect(isValidationError(result)).toBe(true);
    expect(standIn.requests).toEqual([]);
  });

  it('refuses a location over 100 characters, and one coordinate without the other, before calling the service', async () => {
    expect(isValidationError(await execute(weatherTool, { location: 'x'.repeat(101) }))).toBe(true);
    const oneCoordinate = await execute(weatherTool, { location: 'Paris', latitude: 35 });
    expect(isValidationError(oneCoordinate)).toBe(true);
    expect(JSON.stringify(oneCoordinate)).toContain('give latitude and longitude together, or neither');
    expect(standIn.requests).toEqual([]);
  });
});

describe('describeWeatherCode', () => {
  // Every code in the WMO table of https://open-meteo.com/en/docs.
  const DOCUMENTED_CODES = [
    0, 1, 2, 3, 45, 48, 51, 53, 55, 56, 57, 61, 63, 65, 66, 67, 71, 73, 75, 77, 80, 81, 82, 85, 86, 95, 96, 99,
  ];

  it('gives every documented code its own words', () => {
    const descriptions = DOCUMENTED_CODES.map(describeWeatherCode);

    expect(descriptions).not.toContain('Unknown');
    expect(new Set(descriptions).size).toBe(DOCUMENTED_CODES.length);
  });

  it('uses the wording of the Open-Meteo table', () => {
    expect(describeWeatherCode(0)).toBe('Clear sky');
    expect(describeWeatherCode(1)).toBe('Mainly clear');
    expect(describeWeatherCode(45)).toBe('Fog');
    expect(describeWeatherCode(48)).toBe('Depositing rime fog');
    expect(describeWeatherCode(51)).toBe('Light drizzle');
    expect(describeWeatherCode(82)).toBe('Violent rain showers');
    expect(describeWeatherCode(99)).toBe('Thunderstorm with heavy hail');
  });

  it('answers "Unknown" for codes outside the table', () => {
    expect([4, 50, 100, -1, 2.5].map(describeWeatherCode)).toEqual(Array(5).fill('Unknown'));
  });
});
