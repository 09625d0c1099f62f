/**
 * @module Who is asking: the authenticated caller's resource id (the token's
 * subject), and how it combines with an id a request names. With auth on, the
 * caller is the owner on every path; a request naming another owner is
 * refused, never honoured.
 */
import type { RequestContext } from '@mastra/core/request-context';
import { MASTRA_RESOURCE_ID_KEY } from '@mastra/core/request-context';
import { forbiddenResource } from '../contract/errors.ts';

/** The authenticated caller, `undefined` when auth is off. */
export function callerOf(requestContext: RequestContext | undefined): string | undefined {
  const caller = requestContext?.get(MASTRA_RESOURCE_ID_KEY);
  return typeof caller === 'string' ? caller : undefined;
}

/** The owner a request acts for: the caller when authenticated (a different named owner is a 403), else the named one. */
export function effectiveResourceId(caller: string | undefined, requested: string | undefined): string | undefined {
  if (caller === undefined) return requested;
  if (requested !== undefined && requested !== caller) throw forbiddenResource();
  return caller;
}

/**
 * The owner as Mastra's own routes take it, open in development for Studio: the caller when authenticated, whatever the
 * request names (Studio names the agent's id as its default user), else the named one. It never lets a caller act for
 * another user either; production's routes refuse a different name instead (`effectiveResourceId`).
 */
export function mastraResourceId(caller: string | undefined, requested: string | undefined): string | undefined {
  return caller ?? requested;
}
