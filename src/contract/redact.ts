/**
 * @module What a client sees of the model call behind its reply. SPEC returns
 * the model request's body; the agent's system prompt and the tool schemas are
 * ours, not the caller's, so both are replaced before the body leaves the
 * service. Handles both Chat Completions (`messages`, `tools[].function`) and
 * Responses (`instructions`, `input`, `tools[]`) bodies. The model server's
 * address and its account's headers stay in the service.
 */
export const REDACTED = '[redacted]';

type Json = Record<string, unknown>;

const SYSTEM_ROLES = new Set(['system', 'developer']);

export function redactRequestBody(body: unknown): Json {
  if (typeof body === 'string') return redactRequestBody(parseJson(body));
  if (!body || typeof body !== 'object') return {};
  const redacted: Json = { ...(body as Json) };
  if (redacted.instructions !== undefined) redacted.instructions = REDACTED;
  if (Array.isArray(redacted.messages)) redacted.messages = redacted.messages.map(redactSystemMessage);
  if (Array.isArray(redacted.input)) redacted.input = redacted.input.map(redactSystemMessage);
  if (Array.isArray(redacted.tools)) redacted.tools = redacted.tools.map(toolNameOnly);
  return redacted;
}

/** The model request as a client sees it: its redacted body, never the model server's URL. */
export function clientModelRequest(request: { body?: unknown } | undefined): { body: Json } {
  return { body: redactRequestBody(request?.body) };
}

/**
 * The model server's response headers a client is shown: what describes that response. The others belong to the
 * service's account and its connection to the model: cookies, the organization and project a key belongs to, the
 * account's rate-limit state, the proxies on the way.
 */
const CLIENT_RESPONSE_HEADERS = new Set(['content-type', 'date', 'x-request-id', 'openai-processing-ms']);

export function clientResponseHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => CLIENT_RESPONSE_HEADERS.has(name.toLowerCase())));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function redactSystemMessage(message: unknown): unknown {
  const m = message as Json | null;
  return m && SYSTEM_ROLES.has(m.role as string) ? { ...m, content: REDACTED } : message;
}

function toolNameOnly(tool: unknown): Json {
  const t = (tool ?? {}) as Json & { function?: Json };
  const name = t.function?.name ?? t.name;
  return { type: t.type, name, schema: REDACTED };
}
