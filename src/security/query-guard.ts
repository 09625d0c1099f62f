import type { MiddlewareHandler } from 'hono';
import { unsafeQueryKey } from '../contract/errors.ts';

/**
 * @module Refuses a query string that names `__proto__`, `constructor` or
 * `prototype` — as a whole parameter name or inside brackets (`a[b]`), plain or
 * percent-encoded — with 400 INVALID_REQUEST. Mastra's own query normaliser
 * wrote `?__proto__[x]=1` onto `Object.prototype`; it is patched at install
 * (patches/@mastra+server+*.patch), and this guard answers such a request
 * clearly before any route reads its query. Mastra runs its framework-public
 * routes (`/api/auth/*`) without user middleware; there the patch alone holds.
 */
const UNSAFE_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

export const queryGuard: MiddlewareHandler = async (c, next) => {
  const unsafe = parameterNames(new URL(c.req.url).search).find(isUnsafe);
  if (unsafe !== undefined) throw unsafeQueryKey(unsafe);
  await next();
};

/** Parameter names exactly as a query parser sees them: `+` is a space, percent-escapes decoded. */
function parameterNames(search: string): string[] {
  if (search.length <= 1) return [];
  return search
    .slice(1)
    .split('&')
    .map((pair) => decode(pair.split('=', 1)[0]));
}

function decode(text: string): string {
  const spaced = text.replaceAll('+', ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

/** `a[b][c]`, `a.b` → `a`, `b`, `c`: any part of a name may become a property key in some parser. */
function isUnsafe(name: string): boolean {
  return name.split(/[[\].]/).some((part) => UNSAFE_NAMES.has(part));
}
