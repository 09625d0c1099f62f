/**
 * @module The SPEC routes in OpenAPI 3.1, generated from the same zod schemas
 * that validate requests and that the mappers' output is checked against:
 * request body, the 200 generate response, the stream as `text/event-stream`
 * with the event union, and every error status with the SPEC error body.
 * `withSpecRoutes` lays them over the document of the routes the server serves
 * (our custom routes, and in development Mastra's own), so a route registered
 * with OpenAPI metadata (the thread API, /stt) appears without being listed here.
 */
import { z } from 'zod';
import { agentRequest } from './agent-request.ts';
import { errorBodySchema } from './errors.ts';
import { NATIVE_CLIENT_HEADER, THREAD_HEADER, TRACE_HEADER } from './headers.ts';
import { isRateLimitedRoute, SERVICE_PATHS, SPEC_PATHS } from './paths.ts';
import { readiness } from './readiness.ts';
import { generateResponseSchema, modelResponseSchema, stepSchema, uiMessageSchema } from './generate-response.ts';
import { toolCallSchema, toolResultSchema, usageSchema } from './shapes.ts';
import { streamEventSchema } from './stream-events.ts';


/** Mastra's native agent routes, which the SPEC paths share (see src/routes/agent-routes.ts). */
const NATIVE_AGENT_PATHS = ['/agents/{agentId}/generate', '/agents/{agentId}/stream'];

type Json = Record<string, any>;

export interface OpenAPIDocument {
  openapi: string;
  info: Json;
  servers?: Json[];
  paths: Record<string, Json>;
  components?: Json;
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });

/** Response schemas: what the service sends (zod's output view). */
function responseSchemas() {
  const registry = z.registry<{ id: string }>();
  registry.add(usageSchema, { id: 'Usage' });
  registry.add(toolCallSchema, { id: 'ToolCall' });
  registry.add(toolResultSchema, { id: 'ToolResult' });
  registry.add(uiMessageSchema, { id: 'UIMessage' });
  registry.add(modelResponseSchema, { id: 'ModelResponse' });
  registry.add(stepSchema, { id: 'Step' });
  registry.add(generateResponseSchema, { id: 'GenerateResponse' });
  registry.add(streamEventSchema, { id: 'StreamEvent' });
  registry.add(errorBodySchema, { id: 'ErrorBody' });
  registry.add(readiness, { id: 'Readiness' });
  return z.toJSONSchema(registry, { uri: (id) => ref(id).$ref, io: 'output' }).schemas;
}

/** Request schemas: what the service accepts (zod's input view, so defaults and transforms do not tighten it). */
function requestSchemas() {
  const registry = z.registry<{ id: string }>();
  registry.add(agentRequest, { id: 'AgentRequest' });
  return z.toJSONSchema(registry, { uri: (id) => ref(id).$ref, io: 'input', unrepresentable: 'any' }).schemas;
}

/**
 * One self-contained document with one JSON Schema dialect, OpenAPI 3.1's
 * (2020-12): the `$schema` keys zod and Mastra put on each schema (Mastra's say
 * draft-07) go, and so do zod's `$id`s, which only repeat the component's own
 * address. Mastra's schemas keep shared parts in their own `definitions` and
 * point at them with `#/definitions/…`, which inside an OpenAPI document
 * resolves against the document's root and so points nowhere: those parts
 * become components (`hoisted`) and the references follow them.
 */
function selfContained<T>(value: T, hoisted: Record<string, Json>, refs: ReadonlyMap<string, string> = new Map()): T {
  if (Array.isArray(value)) return value.map((item) => selfContained(item, hoisted, refs)) as T;
  if (!value || typeof value !== 'object') return value;
  const { definitions, ...rest } = value as Json;
  // Only a schema's root (the object that names its dialect) holds definitions; elsewhere it may be a property's name.
  const hasDefinitions = typeof rest.$schema === 'string' && Boolean(definitions) && typeof definitions === 'object';
  const scope = new Map(refs);
  if (hasDefinitions) {
    const ids = new Map<string, string>();
    for (const name of Object.keys(definitions)) {
      // Reserved before descending, so definitions nested inside get ids of their own.
      const id = `MastraDefinition${Object.keys(hoisted).length}`;
      hoisted[id] = {};
      ids.set(name, id);
      scope.set(`#/definitions/${name}`, ref(id).$ref);
    }
    for (const [name, id] of ids) hoisted[id] = selfContained(definitions[name], hoisted, scope);
  }
  const kept = Object.entries(hasDefinitions ? rest : (value as Json)).filter(
    ([key, inner]) => !((key === '$schema' || key === '$id') && typeof inner === 'string'),
  );
  return Object.fromEntries(
    kept.map(([key, inner]) => [key, key === '$ref' && typeof inner === 'string' ? (scope.get(inner) ?? inner) : selfContained(inner, hoisted, scope)]),
  ) as T;
}

const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: ref('ErrorBody') } } });

/** The failures the SPEC routes answer with a JSON error body (/stream's own: STREAM_ERRORS). */
const AGENT_ERRORS = {
  '400': errorResponse('INVALID_REQUEST: the body is not JSON, does not match AgentRequest, or gives threadId without resourceId'),
  '401': errorResponse('UNAUTHORIZED: authentication is on and the bearer token is missing or invalid'),
  '403': errorResponse('FORBIDDEN: with authentication, resourceId names another user than the token'),
  '404': errorResponse("NOT_FOUND: threadId names a thread of another resourceId (reported as missing, so ids cannot be probed)"),
  '413': errorResponse('INVALID_REQUEST: the body exceeds 1 MiB'),
  '415': errorResponse('INVALID_REQUEST: the body is not declared as application/json, declares UTF-16 or UTF-32, or is compressed (Content-Encoding)'),
  '429': {
    ...errorResponse("RATE_LIMITED: this client's request limit, the thread's queue of turns, or the language model's own limit"),
    headers: { 'Retry-After': { description: 'Seconds to wait, when known', schema: { type: 'integer' } } },
  },
  '500': errorResponse(
    'MODEL_ERROR (no model configured, the model failed or could not be reached), MEMORY_NOT_INITIALIZED (threadId/resourceId given but the store is off or unreachable, or it failed during the turn). A failed tool is no HTTP error: its tool-result carries isError and the run goes on',
  ),
  '503': errorResponse(
    'MODEL_ERROR with details.reason "shutting-down": the service is stopping (SIGTERM) and the turn outlived SHUTDOWN_DRAIN_MS; send it again. ' +
      "AUTH_UNAVAILABLE (authentication by AUTH_JWKS_URL): the identity provider's signing keys could not be fetched to check the token; try again shortly",
  ),
  '504': errorResponse('MODEL_ERROR with details.timeout: the model sent nothing for MODEL_IDLE_TIMEOUT_MS ("idle"), or the turn outgrew MODEL_TIMEOUT_MS ("turn")'),
};

/**
 * What /stream answers before its first event: its `start` goes out before the model is asked, so the model's own
 * failures (its rate limit, its errors, its silence) are the stream's final `error` event, not a status.
 */
const STREAM_ERRORS = {
  ...AGENT_ERRORS,
  '429': {
    ...errorResponse("RATE_LIMITED: this client's request limit, or the thread's queue of turns (the language model's own limit is the stream's error event)"),
    headers: AGENT_ERRORS['429'].headers,
  },
  '500': errorResponse(
    'MODEL_ERROR (no model configured), MEMORY_NOT_INITIALIZED (threadId/resourceId given but the store is off or unreachable). Once the stream has started, a failure of the model or the store is its final error event',
  ),
  '504': errorResponse('MODEL_ERROR with details.timeout "turn": the turn outgrew MODEL_TIMEOUT_MS waiting for its thread\'s earlier turns; once the stream has started, a timeout is its final error event'),
};

/** The failures an agent route can answer with (`stream`: before its first event): 401 and 403 only with authentication on. */
function agentErrors(authenticated: boolean, route: 'generate' | 'stream') {
  const all = route === 'stream' ? STREAM_ERRORS : AGENT_ERRORS;
  if (authenticated) return all;
  const { '401': _unauthorized, '403': _forbidden, ...errors } = all;
  return errors;
}

function agentOperations(authenticated: boolean) {
  const requestBody = { required: true, content: { 'application/json': { schema: ref('AgentRequest') } } };
  const idHeaders = {
    [TRACE_HEADER]: { description: 'Trace id of this request (the generate body repeats it as traceId)', schema: { type: 'string' } },
    [THREAD_HEADER]: { description: 'Thread of a stored turn; absent on a stateless turn', schema: { type: 'string' } },
  };
  const failureHeaders = {
    [TRACE_HEADER]: idHeaders[TRACE_HEADER],
    [THREAD_HEADER]: { description: 'Thread the turn had opened before it failed (its user message is stored); absent if it failed before', schema: { type: 'string' } },
  };
  const errors = (route: 'generate' | 'stream') =>
    Object.fromEntries(
      Object.entries(agentErrors(authenticated, route)).map(([status, response]) => [
        status,
        { ...response, headers: { ...('headers' in response ? response.headers : {}), ...failureHeaders } },
      ]),
    );
  const protocolNote = `Mastra's own clients select the native protocol instead by sending the ${NATIVE_CLIENT_HEADER} header.`;
  return {
    [SPEC_PATHS.generate]: {
      servers: [{ url: '/' }],
      post: {
        tags: ['Companion agent'],
        operationId: 'generate',
        summary: 'Answer a conversation turn in one JSON body',
        description: `SPEC's generate operation. ${protocolNote}`,
        requestBody,
        responses: {
          '200': { description: 'The complete response', headers: idHeaders, content: { 'application/json': { schema: ref('GenerateResponse') } } },
          ...errors('generate'),
        },
      },
    },
    [SPEC_PATHS.stream]: {
      servers: [{ url: '/' }],
      post: {
        tags: ['Companion agent'],
        operationId: 'stream',
        summary: 'Answer a conversation turn as Server-Sent Events',
        description:
          "SPEC's stream operation. The request is validated and the conversation opened before the first byte, so those failures are JSON error bodies; " +
          `once the stream has started, a failure is one final \`error\` event. ${protocolNote}`,
        requestBody,
        responses: {
          '200': {
            description:
              'A text/event-stream: every event is one `data: <StreamEvent as JSON>` line followed by a blank line; ' +
              '`: keep-alive` comment lines keep an idle stream open. Order: start, step-start, text / tool-call-input-streaming-start, ' +
              'tool-call-delta…, tool-call-input-streaming-end, tool-call, tool-result, step-finish, then the next step or run-finish (or error).',
            headers: idHeaders,
            content: { 'text/event-stream': { schema: ref('StreamEvent') } },
          },
          ...errors('stream'),
        },
      },
    },
  };
}

const jsonAnswer = (description: string, schema: Json) => ({ description, content: { 'application/json': { schema } } });

/** A probe at the server's root (outside Mastra's `/api`), which no route registration describes; it needs no token. */
const probe = (path: string, operationId: string, summary: string, responses: Json) => ({
  [path]: { servers: [{ url: '/' }], get: { tags: ['Operations'], operationId, summary, security: [], responses } },
});

/** Mastra's own `/health`, and our `/ready` (served by middleware: src/routes/ready-route.ts says why). */
const PROBES = {
  ...probe(SERVICE_PATHS.health, 'health', 'Liveness: the process is up', {
    '200': jsonAnswer('The service is up', { type: 'object', properties: { success: { const: true } }, required: ['success'] }),
  }),
  ...probe(SERVICE_PATHS.ready, 'ready', 'Readiness: can the service serve requests now?', {
    '200': jsonAnswer('Every dependency works', ref('Readiness')),
    '400': errorResponse('INVALID_REQUEST: a query parameter named __proto__, constructor or prototype'),
    '503': jsonAnswer('A dependency cannot work', ref('Readiness')),
  }),
};

/** Failures of any of our custom routes that does not describe its own (thread API, /stt…). */
const CUSTOM_ROUTE_ERRORS = {
  '4XX': {
    ...errorResponse('INVALID_REQUEST for bad parameters or body; NOT_FOUND for a missing (or another owner’s) resource; RATE_LIMITED'),
    headers: { 'Retry-After': { description: "Seconds to wait, on a 429 of this client's request limit", schema: { type: 'integer' } } },
  },
  '5XX': errorResponse("MEMORY_NOT_INITIALIZED, AUDIO_PROCESSING_ERROR, AUTH_UNAVAILABLE (the identity provider's signing keys could not be fetched) or another server-side failure"),
};

export interface CustomRoute {
  method: string;
  path: string;
}

export interface SpecDocumentOptions {
  customRoutes: CustomRoute[];
  /** Whether `native` describes Mastra's framework routes too (development serves them, for Studio). */
  frameworkRoutes: boolean;
  /** Authentication is on: every route but the probes needs a bearer token. */
  authenticated: boolean;
}

/** Sent on every response of a route the rate limit counts (README, Rate limits), when it is on. */
const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': { description: 'The limit and its window, e.g. `60;w=60` (when the rate limit is on)', schema: { type: 'string' } },
  'RateLimit-Limit': { description: 'Requests allowed in the window (when the rate limit is on)', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Requests left in the window (when the rate limit is on)', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the window starts again (when the rate limit is on)', schema: { type: 'integer' } },
};

/**
 * Every response of the service's own routes (`ownPaths`) and of `/ready` carries the request's trace id, and those the
 * rate limit counts its headers: declared on each response, as a generated client reads them there.
 */
function withResponseHeaders(paths: Record<string, Json>, ownPaths: string[]): Record<string, Json> {
  const own = new Set([...ownPaths.map(openApiPath), SERVICE_PATHS.ready]);
  const trace = { [TRACE_HEADER]: { description: "Trace id of this request, as in its log lines (the generate body's traceId)", schema: { type: 'string' } } };
  return Object.fromEntries(
    Object.entries(paths).map(([path, item]) => {
      if (!own.has(path)) return [path, item];
      const operations = Object.entries(item).map(([method, operation]) => {
        if (typeof operation !== 'object' || operation === null || !('responses' in operation)) return [method, operation];
        const added = { ...trace, ...(isRateLimitedRoute(method.toUpperCase(), path) && RATE_LIMIT_HEADERS) };
        const responses = Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => [
          status,
          { ...response, headers: { ...added, ...response.headers } },
        ]);
        return [method, { ...operation, responses: Object.fromEntries(responses) }];
      });
      return [path, Object.fromEntries(operations)];
    }),
  );
}

/** With authentication on, the token every route but the probes needs (each probe's `security` is empty). */
const BEARER_SCHEME = { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: "The token's sub is the user" } };

/**
 * The served document (`native`) with the SPEC agent routes, /health and the
 * schemas they use; the native agent routes say how they are reached; every
 * custom route gets the SPEC error body for the failures it does not describe itself.
 */
export function withSpecRoutes(native: OpenAPIDocument, { customRoutes, frameworkRoutes, authenticated }: SpecDocumentOptions): OpenAPIDocument {
  const hoisted: Record<string, Json> = {};
  const paths: Record<string, Json> = selfContained(native.paths, hoisted);
  for (const path of NATIVE_AGENT_PATHS) {
    for (const operation of Object.values(paths[path] ?? {})) {
      operation.description = `Mastra's native protocol. For companionAgent it needs the ${NATIVE_CLIENT_HEADER} header (Studio and @mastra/client-js send it); without it, ${SPEC_PATHS.generate} and ${SPEC_PATHS.stream} answer in the SPEC protocol.`;
    }
  }
  for (const route of customRoutes) {
    const operation = paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
    if (!operation) continue;
    operation.responses = { ...CUSTOM_ROUTE_ERRORS, ...operation.responses };
    // A stable name for generated clients (GET /threads/:threadId → getThreadsThreadId, GET /working-memory → getWorkingMemory).
    operation.operationId ??= route.method.toLowerCase() + route.path.split(/[/:-]+/).map((part) => part.charAt(0).toUpperCase() + part.slice(1)).join('');
    for (const parameter of operation.parameters ?? []) {
      if (parameter.in !== 'query') continue;
      // Mastra marks a query parameter with a default as required; a client may leave it out.
      if (parameter.schema?.default !== undefined) parameter.required = false;
      // The owner: the token's subject with authentication on, else this parameter, which the route then needs.
      if (parameter.name === 'resourceId') parameter.required = !authenticated;
    }
  }
  const served = { ...paths, ...agentOperations(authenticated), ...PROBES };
  return {
    ...native,
    info: {
      title: 'Companion Agent API',
      version: native.info?.version ?? '1.0.0',
      description: `A conversational companion agent: SPEC generate and stream operations, speech to text, the thread API and the working-memory API${
        frameworkRoutes ? ', and the Mastra server routes (under /api) that Studio and Mastra clients use.' : '.'
      }`,
    },
    paths: withResponseHeaders(served, [...customRoutes.map((route) => route.path), SPEC_PATHS.generate, SPEC_PATHS.stream]),
    ...(authenticated && { security: [{ bearer: [] }] }),
    components: {
      ...native.components,
      ...(authenticated && { securitySchemes: { ...native.components?.securitySchemes, ...BEARER_SCHEME } }),
      schemas: { ...native.components?.schemas, ...hoisted, ...selfContained({ ...responseSchemas(), ...requestSchemas() }, hoisted) },
    },
  };
}

/** A route's path as OpenAPI writes it: `/threads/:threadId` → `/threads/{threadId}`. */
function openApiPath(path: string): string {
  return path.replace(/:(\w+)/g, '{$1}');
}
