/**
 * @module Authentication for every route, ours and the framework's, with the
 * provider Mastra's own routes use (`server.auth`). A missing, malformed,
 * expired or wrongly signed token is a 401 in the SPEC error shape; a valid
 * one makes its subject the caller, stored under Mastra's reserved resource-id
 * key, which scopes Mastra's memory routes and our routes alike.
 */
import type { MiddlewareHandler } from 'hono';
import type { MastraAuthProvider } from '@mastra/core/server';
import { MASTRA_RESOURCE_ID_KEY } from '@mastra/core/request-context';
import { authUnavailable, unauthorized } from '../contract/errors.ts';
import { subjectOf } from './token-claims.ts';
import { bearerToken } from './bearer-token.ts';
import { KeySetUnavailable } from './jwks-auth.ts';

export interface AuthenticateOptions {
  provider: MastraAuthProvider;
  /**
   * Requests that answer without a token (Studio's shell under `npm run dev`). The probes never get here:
   * Mastra answers `/health` before any middleware, and `/ready`'s middleware comes before this one.
   */
  isPublicRequest?: (method: string, path: string) => boolean;
}

export function authenticate({ provider, isPublicRequest = () => false }: AuthenticateOptions): MiddlewareHandler {
  return async (c, next) => {
    // Preflights carry no credentials by design; CORS decides them.
    if (c.req.method === 'OPTIONS' || isPublicRequest(c.req.method, c.req.path)) return next();
    const authorization = c.req.header('authorization');
    const token = bearerToken(authorization);
    const user = token ? await provider.authenticateToken(token, c.req).catch(refusedUnlessUnavailable) : null;
    const caller = user ? subjectOf(user as { sub?: unknown }) : undefined;
    // The service's error handler answers it, as every other failure (with its stack in development).
    if (!caller) throw unauthorized(refusalOf(authorization, token));
    c.get('requestContext').set(MASTRA_RESOURCE_ID_KEY, caller);
    return next();
  };
}

/** A provider's failure is a refused token, but for an identity provider out of reach: a 503 and its failure line. */
function refusedUnlessUnavailable(error: unknown): null {
  if (error instanceof KeySetUnavailable) throw authUnavailable(error);
  return null;
}

function refusalOf(authorization: string | undefined, token: string | undefined): string {
  if (token) return 'The bearer token is invalid, expired or not signed by a trusted key.';
  if (authorization) return 'The Authorization header must be "Bearer <token>": the scheme written Bearer, a space, then the token.';
  return 'This route needs an Authorization: Bearer <token> header.';
}
