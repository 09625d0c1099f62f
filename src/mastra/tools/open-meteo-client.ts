/**
 * @module open-meteo-client
 *
 * HTTP to Open-Meteo shared by the tools: a time limit on every request, the caller's abort
 * honoured, answers checked against a schema, and failures explained in words the agent can pass
 * on, without URLs. `service` names the service in those words ("Weather service answered 503").
 */
import { z } from 'zod';
import { normalizeName } from './countries.ts';
import type { PlaceName } from './place-name.ts';
import { ToolFailure } from './tool-failure.ts';

export interface RequestOptions {
  timeoutMs: number;
  /** How error messages name the service, e.g. "Weather service". */
  service: string;
  abortSignal?: AbortSignal;
}

export interface GeocodingOptions extends RequestOptions {
  /** Open-Meteo geocoding base URL, without a trailing slash. */
  geocodingUrl: string;
}

// Only the fields the tools read; Open-Meteo sends many more.
const GeocodingResponseSchema = z.object({
  results: z
    .array(
      z.object({
        name: z.string(),
        latitude: z.number(),
        longitude: z.number(),
        country: z.string().optional(),
        /** The state, province or region; then the county or district. */
        admin1: z.string().optional(),
        admin2: z.string().optional(),
      }),
    )
    .optional(),
});

export type GeocodedPlace = NonNullable<z.infer<typeof GeocodingResponseSchema>['results']>[number];

/** How many namesakes are weighed when a region must pick one: "Paris, Texas" is not the first Paris. */
const NAMESAKES = 10;

/**
 * The best match for a place as people write it (place-name.ts), or undefined when Open-Meteo knows no
 * such place. A named country is Open-Meteo's own filter; a region must be the match's state, province or
 * county. A country's name may be a region's too ("Atlanta, Georgia"): when that country has no place of
 * the name, the name is looked for in a region so called.
 */
export async function geocode(place: PlaceName, options: GeocodingOptions): Promise<GeocodedPlace | undefined> {
  const { name, countryCode, regions, qualifiers } = place;
  if (regions.length === 0) {
    const [found] = await search(name, { countryCode, count: 1 }, options);
    if (found || qualifiers.length === 0) return found;
  }
  const wanted = new Set(regions.length > 0 ? regions : qualifiers);
  const namesakes = await search(name, { countryCode: regions.length > 0 ? countryCode : undefined, count: NAMESAKES }, options);
  return namesakes.find(({ admin1, admin2 }) => [admin1, admin2].some((region) => region !== undefined && wanted.has(normalizeName(region))));
}

async function search(name: string, { countryCode, count }: { countryCode?: string; count: number }, options: GeocodingOptions) {
  const url = new URL(`${options.geocodingUrl}/v1/search`);
  const params = new URLSearchParams({ name, count: String(count), language: 'en', format: 'json' });
  if (countryCode) params.set('countryCode', countryCode);
  url.search = params.toString();
  // Open-Meteo leaves `results` out entirely when nothing matches.
  return parseResponse(GeocodingResponseSchema, await getJson(url, options), options.service).results ?? [];
}

export async function getJson(url: URL, { timeoutMs, service, abortSignal }: RequestOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = abortSignal ? AbortSignal.any([timeout, abortSignal]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    if (response.ok) return await response.json();
  } catch (error) {
    if (timeout.aborted) throw new ToolFailure(`${service} did not answer within ${timeoutMs} ms`, 'timeout', { cause: error });
    // Cancelled by the caller (the agent run was aborted): nothing to explain.
    if (abortSignal?.aborted) throw error;
    if (error instanceof SyntaxError) throw unexpectedResponse(service, error);
    throw new ToolFailure(`${service} could not be reached`, 'unreachable', { cause: error });
  }
  // Release the connection; the error body is of no use to the agent.
  await response.body?.cancel();
  throw new ToolFailure(`${service} answered ${response.status}`, 'upstream-status', { upstreamStatus: response.status });
}

export function parseResponse<Schema extends z.ZodType>(schema: Schema, body: unknown, service: string): z.infer<Schema> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw unexpectedResponse(service, parsed.error);
  return parsed.data;
}

function unexpectedResponse(service: string, cause: unknown): Error {
  return new ToolFailure(`${service} sent an unexpected response`, 'unexpected-response', { cause });
}
