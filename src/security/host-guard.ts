import type { MiddlewareHandler } from 'hono';
import { hostNotAllowed } from '../contract/errors.ts';

/**
 * @module Development's answer to DNS rebinding. The development server binds to this machine only (the config
 * refuses another HOST), but a web page can still reach it: its site's name is made to resolve to 127.0.0.1, and
 * the browser then counts the page and the server as one origin, so CORS never applies and the page reads Studio's
 * routes (every thread, the traces). Such a request names the page's site in its `Host` header; so only names that
 * always mean this machine (`localhost`, `*.localhost`) and IP addresses, which no DNS answer can rebind, are served.
 * Production is reached by names of its own, through proxies, and takes any.
 */
export function localHostGuard(traceId: MiddlewareHandler): MiddlewareHandler {
  return (c, next) => {
    const { hostname } = new URL(c.req.url);
    if (isLocalHostName(hostname)) return next();
    // With a trace id, and so an access line, as every other refusal has.
    return traceId(c, async () => {
      throw hostNotAllowed(hostname);
    });
  };
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** `hostname` as the URL parser gives it: lower case, an IPv6 address in brackets; a final dot changes nothing. */
export function isLocalHostName(hostname: string): boolean {
  const name = hostname.replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || IPV4.test(name) || name.startsWith('[');
}
