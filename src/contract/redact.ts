/**
 * @module SPEC returns the model request's body; the agent's system prompt and the tool
 * schemas are ours, not the caller's, so both are replaced before the body
 * leaves the service. Handles both Chat Completions (`messages`, `tools[].function`)
 * and Responses (`instructions`, `input`, `tools[]`) bodies.
 */
export const REDACTED = '[redacted]';

type Json = Record<string, unknown>;

const SYSTEM_ROLES = new Set(['system', 'developer']);

export function redactRequestBody(body: unknown): Json {
  if (typeof body === 'string') return redactRequestBody(parseJson(body));
  if (!body || typeof body !== 'object') return {};
  const redacted: Json = { ...(body as Json) };
  if ('instructions' in redacted) redacted.instructions = REDACTED;
  if (Array.isArray(redacted.messages)) redacted.messages = redacted.messages.map(redactSystemMessage);
  if (Array.isArray(redacted.input)) redacted.input = redacted.input.map(redactSystemMessage);
  if (Array.isArray(redacted.tools)) redacted.tools = redacted.tools.map(toolNameOnly);
  return redacted;
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
