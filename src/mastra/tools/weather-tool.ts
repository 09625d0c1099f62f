/**
 * @module weather-tool
 *
 * `weatherTool`: the current weather of a place, from Open-Meteo: its geocoding finds the place ("Paris, Texas"
 * reads as place-name.ts says), its forecast API gives the conditions, in °C, %, km/h and words.
 */
import { createTool } from '@mastra/core/tools';
import { z } from 'zod';
import { geocode, getJson, parseResponse, type GeocodedPlace } from './open-meteo-client.ts';
import { MAX_PLACE_NAME_LENGTH, parsePlaceName } from './place-name.ts';
import { ToolFailure } from './tool-failure.ts';
import { describeWeatherCode } from './wmo-weather-codes.ts';

const SERVICE = 'Weather service';

export interface WeatherToolOptions {
  /** Open-Meteo geocoding base URL, without a trailing slash. */
  geocodingUrl: string;
  /** Open-Meteo forecast base URL, without a trailing slash. */
  forecastUrl: string;
  /** Limit for each of the two requests, so a slow service cannot stall the agent. */
  timeoutMs: number;
}

/** Open-Meteo `current` variables, in their default units: °C, %, km/h and a WMO code. */
const CurrentConditionsSchema = z.object({
  temperature_2m: z.number(),
  apparent_temperature: z.number(),
  relative_humidity_2m: z.number(),
  wind_speed_10m: z.number(),
  wind_gusts_10m: z.number(),
  weather_code: z.number(),
});

// Request exactly the variables the schema reads, so the two cannot drift apart.
const CURRENT_VARIABLES = Object.keys(CurrentConditionsSchema.shape).join(',');

const ForecastResponseSchema = z.object({ current: CurrentConditionsSchema });

const WeatherSchema = z.object({
  temperature: z.number().describe('Air temperature 2 m above ground, in °C'),
  feelsLike: z.number().describe('Apparent ("feels like") temperature, in °C'),
  humidity: z.number().describe('Relative humidity 2 m above ground, in %'),
  windSpeed: z.number().describe('Wind speed 10 m above ground, in km/h'),
  windGust: z.number().describe('Wind gusts 10 m above ground, in km/h'),
  conditions: z.string().describe('Sky and precipitation in words, e.g. "Partly cloudy"'),
  location: z.string().describe('The place found, as "name, country" (the name alone when it has no country); with latitude and longitude, the name as given'),
});

export type Weather = z.infer<typeof WeatherSchema>;

/** Builds the weather tool; the caller passes the Open-Meteo settings from the service config. */
export function createWeatherTool(options: WeatherToolOptions) {
  return createTool({
    id: 'weatherTool',
    description:
      'Get the current weather for a city or place: temperature, feels-like temperature, humidity, wind and conditions.',
    inputSchema: z
      .object({
        location: z
          .string()
          .trim()
          .min(1)
          .max(MAX_PLACE_NAME_LENGTH)
          .describe('Name of a city, town or landmark, e.g. "Varanasi"; after a comma, its country or region when the name is ambiguous, e.g. "Paris, Texas"'),
        latitude: z.number().min(-90).max(90).optional().describe('Known latitude, e.g. from spiritualDestinationsTool; skips the name lookup'),
        longitude: z.number().min(-180).max(180).optional().describe('Known longitude, given together with latitude'),
      })
      // One coordinate alone was dropped without a word, and the place looked up by name instead.
      .refine(({ latitude, longitude }) => (latitude === undefined) === (longitude === undefined), {
        message: 'give latitude and longitude together, or neither',
        path: ['longitude'],
      }),
    outputSchema: WeatherSchema,
    execute: async ({ location, latitude, longitude }, { abortSignal }) => {
      // Sacred sites ("Paro Taktsang") rarely geocode by name; their catalogue coordinates always work.
      const place =
        latitude !== undefined && longitude !== undefined
          ? { name: location, latitude, longitude }
          : await findPlace(location, options, abortSignal);
      return fetchCurrentWeather(place, options, abortSignal);
    },
  });
}

async function findPlace(location: string, options: WeatherToolOptions, abortSignal?: AbortSignal): Promise<GeocodedPlace> {
  const place = await geocode(parsePlaceName(location), { ...options, service: SERVICE, abortSignal });
  if (!place) throw new ToolFailure(`Location "${location}" was not found`, 'not-found');
  return place;
}

async function fetchCurrentWeather(place: GeocodedPlace, options: WeatherToolOptions, abortSignal?: AbortSignal): Promise<Weather> {
  const url = new URL(`${options.forecastUrl}/v1/forecast`);
  url.search = new URLSearchParams({
    latitude: String(place.latitude),
    longitude: String(place.longitude),
    current: CURRENT_VARIABLES,
  }).toString();
  const body = await getJson(url, { timeoutMs: options.timeoutMs, service: SERVICE, abortSignal });
  const { current } = parseResponse(ForecastResponseSchema, body, SERVICE);
  return {
    temperature: current.temperature_2m,
    feelsLike: current.apparent_temperature,
    humidity: current.relative_humidity_2m,
    windSpeed: current.wind_speed_10m,
    windGust: current.wind_gusts_10m,
    conditions: describeWeatherCode(current.weather_code),
    location: place.country ? `${place.name}, ${place.country}` : place.name,
  };
}
