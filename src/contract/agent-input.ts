/**
 * @module From the SPEC request to what the agent call needs: AI SDK messages,
 * the personality asked for, and a new thread's title.
 */
import type { ModelMessage } from 'ai';
import type { Personality } from './personalities.ts';
import { contentText, type AgentRequest, type SpecMessage } from './agent-request.ts';

/**
 * SPEC request → what the agent call needs. SPEC content parts
 * (`input_text`/`output_text`) become AI SDK text parts, which stock Mastra
 * would otherwise drop.
 */
export function toAgentMessages(messages: SpecMessage[]): ModelMessage[] {
  return messages.map(({ role, content }): ModelMessage => {
    if (role === 'system') return { role, content: typeof content === 'string' ? content : content.map((p) => p.text).join('\n') };
    const parts = typeof content === 'string' ? content : content.map((p) => ({ type: 'text' as const, text: p.text }));
    // The same object twice: each branch is checked against its own member of the ModelMessage union.
    return role === 'user' ? { role, content: parts } : { role, content: parts };
  });
}

/** The personality the request asks for: `runtimeContext` wins over `tracingOptions` (see README). */
export function requestedPersonality(request: AgentRequest): Personality | undefined {
  return request.runtimeContext?.metadata?.personality ?? request.tracingOptions?.metadata?.personality;
}

const TITLE_LENGTH = 60;
const GRAPHEMES = new Intl.Segmenter('en', { granularity: 'grapheme' });
const codePoints = (text: string) => Array.from(text).length;

/** A thread's first title: the start of its first user message, at most 60 characters, cut at a word and marked `…`. */
export function titleFrom(messages: SpecMessage[]): string {
  const firstUser = messages.find((m) => m.role === 'user') ?? messages[0];
  // Line breaks and other control characters read as spaces (PostgreSQL would refuse a U+0000 in a title).
  const text = (firstUser ? contentText(firstUser.content) : '').replace(/[\s\p{Cc}]+/gu, ' ').trim();
  // Counted in characters (code points), so a cut never splits one (an emoji is two UTF-16 units).
  if (codePoints(text) <= TITLE_LENGTH) return text || 'New conversation';
  // The ellipsis is one of the 60. Cut between what reads as one character (a family emoji is five code points).
  let cut = '';
  let length = 0;
  for (const { segment } of GRAPHEMES.segment(text)) {
    length += codePoints(segment);
    if (length > TITLE_LENGTH - 1) break;
    cut += segment;
  }
  const lastSpace = cut.lastIndexOf(' ');
  return `${(lastSpace > TITLE_LENGTH / 2 ? cut.slice(0, lastSpace) : cut).trimEnd()}…`;
}

