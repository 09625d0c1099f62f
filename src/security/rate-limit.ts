/**
 * @module Rate limiting per client on the routes that cost money or storage
 * (agent turns, transcriptions, the thread and working-memory API), with `hono-rate-limiter`:
 * the client is the token's subject when auth is on, else its address. Over
 * the limit → 429 `RATE_LIMITED` with `Retry-After` and the IETF
 * `RateLimit-*` headers. Probes are never limited.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import { rateLimiter, type Store } from 'hono-rate-limiter';
import { rateLimited } from '../contract/errors.ts';
import { isRateLimitedRoute } from '../contract/paths.ts';
import { callerOf } from './caller.ts';

export interface RateLimitOptions {
  /** Requests per client per minute; 0 switches limiting off. */
  perMinute: number;
  /** Behind one reverse proxy: the last `X-Forwarded-For` entry is the client's address. */
  trustProxy: boolean;
  /** Where hits are counted: in memory by default, a shared store for several replicas. */
  store?: Store;
}

const WINDOW_MS = 60_000;


function clientKey(c: Context, trustProxy: boolean): string {
  const caller = callerOf(c.get('requestContext'));
  if (caller) return `user:${caller}`;
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',').at(-1)?.trim();
    if (forwarded) return `ip:${forwarded}`;
  }
  return `ip:${socketAddress(c) ?? 'unknown'}`;
}

function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    // In-process requests (tests, `app.request`) have no socket.
    return undefined;
  }
}

export function rateLimit({ perMinute, trustProxy, store }: RateLimitOptions): MiddlewareHandler {
  if (perMinute === 0) return (_c, next) => next();
  return rateLimiter({
    windowMs: WINDOW_MS,
    limit: perMinute,
    standardHeaders: 'draft-6',
    keyGenerator: (c) => clientKey(c, trustProxy),
    skip: (c) => !isRateLimitedRoute(c.req.method, c.req.path),
    store,
    handler: (c) => {
      const resetTime = (c.get('rateLimit' as never) as { resetTime?: Date } | undefined)?.resetTime;
      const retryAfter = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : WINDOW_MS / 1000;
      throw rateLimited(retryAfter);
    },
  });
}
