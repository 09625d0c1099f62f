/**
 * @module Which browser origins may read the service's answers (the CORS
 * `origin` option Mastra hands to Hono's `cors()`, replacing its `*`): the
 * configured `CORS_ORIGINS` exactly, plus any `localhost` / `127.0.0.1` /
 * `[::1]` origin when loopback origins are allowed (development without a
 * list). Every other origin gets no `Access-Control-Allow-Origin`, so a web
 * page elsewhere can neither read a reply nor send a JSON body (its preflight fails).
 */
export interface CorsOriginOptions {
  origins: readonly string[];
  allowLoopback: boolean;
}

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

export function createCorsOrigin(options: CorsOriginOptions) {
  const allowed = new Set(options.origins);
  return (origin: string): string | null =>
    allowed.has(origin) || (options.allowLoopback && LOOPBACK_ORIGIN.test(origin)) ? origin : null;
}
