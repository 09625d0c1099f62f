/**
 * @module The token of an `Authorization: Bearer <token>` header, for every
 * check of ours. The scheme is matched as written, `Bearer`: Mastra's own
 * route check strips exactly `"Bearer "` before verifying, so a token sent
 * under any other spelling fails on its routes, and must fail on ours too
 * for every route to answer the same header alike. The token is a token68.
 */
const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/;

export function bearerToken(authorization: string | null | undefined): string | undefined {
  return BEARER.exec(authorization ?? '')?.[1];
}
