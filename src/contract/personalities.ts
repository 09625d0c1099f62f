/** @module SPEC's personalities: the values a request may name, and the one a conversation starts with. */
export const PERSONALITIES = ['guru', 'wanderer', 'friend', 'philosopher'] as const;

export type Personality = (typeof PERSONALITIES)[number];

export const DEFAULT_PERSONALITY: Personality = 'friend';

export function isPersonality(value: unknown): value is Personality {
  return typeof value === 'string' && (PERSONALITIES as readonly string[]).includes(value);
}
