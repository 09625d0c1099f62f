/**
 * @module The one pattern every thread and user id matches: letters, digits
 * and `. _ : @ -`, at most 128 characters. Ids travel in headers, logs and SQL
 * keys; control characters, spaces and non-Latin-1 text never reach any of them.
 */
import { z } from 'zod';

export const SAFE_ID_PATTERN = /^[A-Za-z0-9._:@-]{1,128}$/;

export function isSafeId(value: string): boolean {
  return SAFE_ID_PATTERN.test(value);
}

/** A schema for an id field, whose error names the field and the rule. */
export function safeId(name: string) {
  return z
    .string({ error: `${name} must be a string` })
    .regex(SAFE_ID_PATTERN, `${name} must be 1–128 characters of A–Z, a–z, 0–9 and . _ : @ -`);
}
