import { describe, expect, it } from 'vitest';
import { REDACTED, redactRequestBody } from './redact.ts';

describe('redactRequestBody', () => {
  it('hides system prompts and tool schemas of a Chat Completions body, keeping the conversation', () => {
    const body = {
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'You are the Guru' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
      tools: [{ type: 'function', function: { name: 'weatherTool', description: 'secret', parameters: { type: 'object' } } }],
    };
    expect(redactRequestBody(body)).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: REDACTED },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
      ],
      tools: [{ type: 'function', name: 'weatherTool', schema: REDACTED }],
    });
  });

  it('hides instructions, developer messages and tool schemas of a Responses body', () => {
    const body = {
      instructions: 'You are the Guru',
      input: [
        { role: 'developer', content: 'rules' },
        { role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      ],
      tools: [{ type: 'function', name: 'weatherTool', parameters: { type: 'object' } }],
    };
    expect(redactRequestBody(body)).toEqual({
      instructions: REDACTED,
      input: [
        { role: 'developer', content: REDACTED },
        { role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
      ],
      tools: [{ type: 'function', name: 'weatherTool', schema: REDACTED }],
    });
  });

  it('adds no instructions a body did not send (the AI SDK leaves the key, undefined, when there are none)', () => {
    expect(redactRequestBody({ instructions: undefined, input: [] })).toEqual({ input: [] });
  });

  it('reads a body sent as JSON text, and answers {} for anything that is not an object', () => {
    expect(redactRequestBody(JSON.stringify({ messages: [{ role: 'system', content: 'x' }] }))).toEqual({
      messages: [{ role: 'system', content: REDACTED }],
    });
    for (const junk of ['not json', undefined, null, 42]) expect(redactRequestBody(junk)).toEqual({});
  });

  it('leaves the original body untouched', () => {
    const body = { messages: [{ role: 'system', content: 'keep me' }] };
    redactRequestBody(body);
    expect(body.messages[0]!.content).toBe('keep me');
  });
});
