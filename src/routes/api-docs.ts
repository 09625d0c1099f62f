/**
 * @module The API's documentation: `/api/openapi.json` describes the routes
 * the server serves, with the SPEC routes laid over them (see
 * src/contract/openapi.ts): in production our own routes only, in development
 * Mastra's own document as well (Studio's routes). `/docs` renders it with
 * Swagger UI, whose assets come from the `swagger-ui-dist` package, so the
 * page works offline (no CDN). They are read as files, which the bundler of
 * `mastra build` cannot see: `npm run build` copies the package into the output.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Context, MiddlewareHandler, Next } from 'hono';
import { registerApiRoute, type ApiRoute } from '@mastra/core/server';
import { convertCustomRoutesToOpenAPIPaths } from '@mastra/server/server-adapter';
import { withSpecRoutes, type OpenAPIDocument } from '../contract/openapi.ts';
import { SERVICE_PATHS } from '../contract/paths.ts';
import { closedRoutes, type ServerMode } from '../security/route-gate.ts';
import './context.ts';

const { openapi: OPENAPI_PATH, docs: DOCS_PATH } = SERVICE_PATHS;

export interface OpenAPIDocumentOptions {
  mode: ServerMode;
  /** Authentication is on: the document names the bearer token. */
  authenticated: boolean;
}

/**
 * Wraps Mastra's `GET /api/openapi.json` (enabled with `build.openAPIDocs`):
 * the document is built on the first request and kept, as the routes it
 * describes never change while the process runs. Production answers none of
 * Mastra's ~360 framework paths, so its document leaves them out (and costs a
 * fraction of the CPU to build: Mastra's builder converts every route's schemas).
 */
export function specOpenAPIDocument({ mode, authenticated }: OpenAPIDocumentOptions): { path: string; handler: MiddlewareHandler } {
  let document: OpenAPIDocument | undefined;
  return {
    path: OPENAPI_PATH,
    async handler(c, next) {
      // HEAD too (Hono answers it with the GET route): it must not build what GET leaves out.
      if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
      if (!document) {
        const customRoutes = c.get('mastra').getServer()?.apiRoutes ?? [];
        const frameworkRoutes = mode === 'development';
        const served = frameworkRoutes ? await mastraDocument(c, next, closedRoutes(authenticated)) : ownRoutesDocument(customRoutes);
        if (!served) return;
        document = withSpecRoutes(served, { customRoutes, frameworkRoutes, authenticated });
      }
      c.res = c.json(document);
    },
  };
}

/** Mastra's document of its routes and ours, without the routes the route gate closes. */
async function mastraDocument(c: Context, next: Next, isClosed: (method: string, path: string) => boolean): Promise<OpenAPIDocument | undefined> {
  await next();
  if (c.res.status !== 200) return undefined;
  const document = (await c.res.json()) as OpenAPIDocument;
  for (const [path, item] of Object.entries(document.paths)) {
    // Mastra's paths are relative to its `/api` server, in OpenAPI's `{param}` form.
    const served = `/api${path.replace(/\{(\w+)\}/g, ':$1')}`;
    for (const method of Object.keys(item)) if (HTTP_METHODS.has(method) && isClosed(method.toUpperCase(), served)) delete item[method];
    if (!Object.keys(item).some((key) => HTTP_METHODS.has(key))) delete document.paths[path];
  }
  return document;
}

const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Our custom routes, described by the converter Mastra uses for them in its own document. */
function ownRoutesDocument(customRoutes: ApiRoute[]): OpenAPIDocument {
  return { openapi: '3.1.0', info: {}, paths: convertCustomRoutesToOpenAPIPaths(customRoutes) };
}

const swaggerUiDist = (file: string) => createRequire(import.meta.url).resolve(`swagger-ui-dist/${file}`);

// A Map: a path segment such as `constructor` must not find an object's inherited members.
const ASSETS = new Map([
  ['swagger-ui.css', { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' }],
  ['swagger-ui-bundle.js', { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' }],
]);

// A separate script (not inline) so the page also works under a strict Content-Security-Policy.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: '${OPENAPI_PATH}', dom_id: '#docs', deepLinking: true, validatorUrl: null });\n`;

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Companion Agent API</title>
  <link rel="stylesheet" href="${DOCS_PATH}/swagger-ui.css">
</head>
<body>
  <div id="docs"></div>
  <script src="${DOCS_PATH}/swagger-ui-bundle.js"></script>
  <script src="${DOCS_PATH}/init.js"></script>
</body>
</html>
`;

/** `/docs` and its assets; undocumented in OpenAPI themselves. */
export function createDocsRoutes() {
  return [
    registerApiRoute(DOCS_PATH, { method: 'GET', handler: (c) => c.html(PAGE) }),
    registerApiRoute(`${DOCS_PATH}/init.js`, {
      method: 'GET',
      handler: (c) => c.body(INIT_SCRIPT, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
    }),
    registerApiRoute(`${DOCS_PATH}/:asset`, {
      method: 'GET',
      handler: async (c) => {
        const asset = ASSETS.get(c.req.param('asset'));
        if (!asset) return c.notFound();
        const body = await readFile(swaggerUiDist(asset.file));
        return c.body(body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' });
      },
    }),
  ];
}
