/**
 * @module open-meteo-client
 *
 * HTTP to Open-Meteo shared by the tools: a time limit on every request, the caller's abort
 * honoured, answers checked against a schema, and failures explained in words the agent can pass
 * on, without URLs. `service` names the service in those words ("Weather service answered 503").
 */
import { z } from 'zod';

export interface RequestOptions {
  timeoutMs: number;
  /** How error messages name the service, e.g. "Weather service". */
  service: string;
  abortSignal?: AbortSignal;
}

export interface GeocodingOptions extends RequestOptions {
  /** Open-Meteo geocoding base URL, without a trailing slash. */
  geocodingUrl: string;
  /** Only places in this country (ISO 3166-1 alpha-2): Open-Meteo's own filter. */
  countryCode?: string;
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
      }),
    )
    .optional(),
});

export type GeocodedPlace = NonNullable<z.infer<typeof GeocodingResponseSchema>['results']>[number];

/** The best match for a place name, or undefined when Open-Meteo knows no such place. */
export async function geocode(name: string, options: GeocodingOptions): Promise<GeocodedPlace | undefined> {
  const url = new URL(`${options.geocodingUrl}/v1/search`);
  const params = new URLSearchParams({ name, count: '1', language: 'en', format: 'json' });
  if (options.countryCode) params.set('countryCode', options.countryCode);
  url.search = params.toString();
  // Open-Meteo leaves `results` out entirely when nothing matches.
  return parseResponse(GeocodingResponseSchema, await getJson(url, options), options.service).results?.[0];
}

export async function getJson(url: URL, { timeoutMs, service, abortSignal }: RequestOptions): Promise<unknown> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = abortSignal ? AbortSignal.any([timeout, abortSignal]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, { signal, headers: { accept: 'application/json' } });
    if (response.ok) return await response.json();
  } catch (error) {
    if (timeout.aborted) throw new Error(`${service} did not answer within ${timeoutMs} ms`, { cause: error });
    // Cancelled by the caller (the agent run was aborted): nothing to explain.
    if (abortSignal?.aborted) throw error;
    if (error instanceof SyntaxError) throw unexpectedResponse(service, error);
    throw new Error(`${service} could not be reached`, { cause: error });
  }
  // Release the connection; the error body is of no use to the agent.
  await response.body?.cancel();
  throw new Error(`${service} answered ${response.status}`);
}

export function parseResponse<Schema extends z.ZodType>(schema: Schema, body: unknown, service: string): z.infer<Schema> {
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw unexpectedResponse(service, parsed.error);
  return parsed.data;
}

function unexpectedResponse(service: string, cause: unknown): Error {
  return new Error(`${service} sent an unexpected response`, { cause });
}
