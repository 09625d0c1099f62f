/**
 * @module The module resolve hook behind bench/stock/loader.ts: rewrites resolved URLs
 * that fall inside a patched package to the same file in its stock copy.
 */
interface Redirect {
  from: string;
  to: string;
}

let redirects: Redirect[] = [];

export function initialize(data: Redirect[]) {
  redirects = data;
}

export async function resolve(
  specifier: string,
  context: unknown,
  nextResolve: (specifier: string, context: unknown) => Promise<{ url: string }>,
) {
  const resolved = await nextResolve(specifier, context);
  const redirect = redirects.find(({ from }) => resolved.url.startsWith(from));
  return redirect ? { ...resolved, url: redirect.to + resolved.url.slice(redirect.from.length) } : resolved;
}
