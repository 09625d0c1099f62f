import { z } from 'zod';

/**
 * @module The one pattern every client-chosen id must match (`threadId`,
 * `resourceId`, a native `memory.thread`/`memory.resource`, `runId`), checked
 * before any work. Ids travel into response headers (`x-thread-id`), log lines
 * and store keys, so control characters, whitespace and non-ASCII text are
 * refused instead of being stored, cut short or failing half-way through a turn.
 * `|` is in: identity providers' subjects hold it (Auth0's `auth0|…`, `google-oauth2|…`),
 * and a subject is its user's id. `/` is not: the turn lock's key is `owner/threadId`.
 */
const SAFE_ID_PATTERN = /^[A-Za-z0-9._:@|-]{1,128}$/;

const SAFE_ID_TEXT = '1–128 characters from A–Z a–z 0–9 . _ : @ | -';

export function safeId(name: string) {
  return z
    .string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .regex(SAFE_ID_PATTERN, `${name} must be ${SAFE_ID_TEXT}`);
}

export function isSafeId(value: string): boolean {
  return SAFE_ID_PATTERN.test(value);
}
