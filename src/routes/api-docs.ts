/**
 * @module The API's documentation: `/api/openapi.json` is Mastra's own document
 * with the SPEC routes laid over it (see src/contract/openapi.ts), and `/docs`
 * renders it with Swagger UI, whose assets come from the `swagger-ui-dist`
 * package, so the page works offline (no CDN).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { MiddlewareHandler } from 'hono';
import { registerApiRoute } from '@mastra/core/server';
import { withSpecRoutes, type OpenAPIDocument, type SpecHeaders } from '../contract/openapi.ts';
import './context.ts';

export const OPENAPI_PATH = '/api/openapi.json';
export const DOCS_PATH = '/docs';

/**
 * Wraps Mastra's `GET /api/openapi.json` (enabled with `build.openAPIDocs`):
 * the document is built on the first request and kept, as the routes it
 * describes never change while the process runs.
 */
export function specOpenAPIDocument(headers: SpecHeaders): { path: string; handler: MiddlewareHandler } {
  let document: OpenAPIDocument | undefined;
  return {
    path: OPENAPI_PATH,
    async handler(c, next) {
      if (c.req.method !== 'GET') return next();
      if (!document) {
        await next();
        if (c.res.status !== 200) return;
        const customRoutes = c.get('mastra').getServer()?.apiRoutes ?? [];
        document = withSpecRoutes((await c.res.json()) as OpenAPIDocument, customRoutes, headers);
      }
      c.res = c.json(document);
    },
  };
}

const swaggerUiDist = (file: string) => createRequire(import.meta.url).resolve(`swagger-ui-dist/${file}`);

const ASSETS: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
};

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
        const asset = ASSETS[c.req.param('asset')];
        if (!asset) return c.notFound();
        const body = await readFile(swaggerUiDist(asset.file));
        return c.body(body, 200, { 'content-type': asset.type, 'cache-control': 'public, max-age=86400' });
      },
    }),
  ];
}
