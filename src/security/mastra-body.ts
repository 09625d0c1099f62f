import type { Context } from 'hono';
import { unsupportedMediaType } from '../contract/errors.ts';

/**
 * The JSON body of a request to one of Mastra's routes, read by a middleware that guards it (by the ids it names).
 * Mastra's handlers also read a `multipart/form-data` body as their parameters, which a guard reading JSON would not
 * see: such a body is refused (415) on the guarded routes, which take JSON (Studio sends JSON). Anything that is not
 * JSON reads as no body, as Mastra reads it.
 */
export async function jsonBodyForMastra(c: Context): Promise<Record<string, unknown> | undefined> {
  const contentType = c.req.header('content-type');
  if (contentType?.toLowerCase().includes('multipart/form-data')) throw unsupportedMediaType(contentType);
  const body: unknown = await c.req.raw.clone().json().catch(() => undefined);
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
}
