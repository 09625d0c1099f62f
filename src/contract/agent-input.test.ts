import { describe, expect, it } from 'vitest';
import { requestedPersonality, titleFrom, toAgentMessages } from './agent-input.ts';

describe('titleFrom', () => {
  it('takes the first user message, whitespace collapsed', () => {
    expect(titleFrom([{ role: 'system', content: 'Be brief' }, { role: 'user', content: '  Hi,\n\tI am   Ada ' }])).toBe('Hi, I am Ada');
  });

  it('joins content parts', () => {
    expect(titleFrom([{ role: 'user', content: [{ type: 'input_text', text: 'Where' }, { type: 'input_text', text: 'to go?' }] }])).toBe('Where to go?');
  });

  it('cuts a long message at a word, with an ellipsis', () => {
    const title = titleFrom([{ role: 'user', content: 'I would love to find a quiet monastery in the mountains where I can stay for a week' }]);
    expect(title).toBe('I would love to find a quiet monastery in the mountains…');
  });

  it('cuts a long word-less message to 60 characters, the ellipsis included', () => {
    expect(titleFrom([{ role: 'user', content: 'x'.repeat(80) }])).toBe(`${'x'.repeat(59)}…`);
    expect(titleFrom([{ role: 'user', content: 'x'.repeat(60) }])).toBe('x'.repeat(60));
  });

  it('counts characters, not UTF-16 units: a cut never splits an emoji', () => {
    expect(titleFrom([{ role: 'user', content: '😀'.repeat(60) }])).toBe('😀'.repeat(60));
    expect(titleFrom([{ role: 'user', content: '😀'.repeat(70) }])).toBe(`${'😀'.repeat(59)}…`);
    // Nor what reads as one: a family emoji is five code points (three people joined by two U+200D).
    const family = '👨\u200D👩\u200D👧';
    expect(titleFrom([{ role: 'user', content: family.repeat(20) }])).toBe(`${family.repeat(11)}…`);
  });

  it('falls back to the first message without a user message, and names an empty conversation', () => {
    expect(titleFrom([{ role: 'assistant', content: 'Welcome back' }])).toBe('Welcome back');
    expect(titleFrom([])).toBe('New conversation');
  });
});

describe('toAgentMessages', () => {
  it('turns SPEC content parts into text parts, and a system message into one string', () => {
    expect(
      toAgentMessages([
        { role: 'system', content: [{ type: 'input_text', text: 'a' }, { type: 'input_text', text: 'b' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
        { role: 'assistant', content: 'Hello' },
      ]),
    ).toEqual([
      { role: 'system', content: 'a\nb' },
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: 'Hello' },
    ]);
  });
});

describe('requestedPersonality', () => {
  const messages = [{ role: 'user' as const, content: 'Hi' }];
  it('prefers runtimeContext over tracingOptions, and is undefined when neither names one', () => {
    expect(
      requestedPersonality({ messages, runtimeContext: { metadata: { personality: 'guru' } }, tracingOptions: { metadata: { personality: 'philosopher' } } }),
    ).toBe('guru');
    expect(requestedPersonality({ messages, tracingOptions: { metadata: { personality: 'philosopher' } } })).toBe('philosopher');
    expect(requestedPersonality({ messages })).toBeUndefined();
  });
});
