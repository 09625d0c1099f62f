/**
 * @module What every bearer token must carry, whichever provider verifies it. `exp`: a token without one never
 * expires, and could be revoked only by rotating the secret or the identity provider's keys. `sub`: the user,
 * a usable id (`subjectOf`), the rule every provider and every route go by.
 */
import { isSafeId } from '../contract/ids.ts';

export const REQUIRED_CLAIMS = ['exp'];

/** The user a verified token stands for: its subject, when it is a usable id. */
export function subjectOf(claims: { sub?: unknown }): string | undefined {
  return typeof claims.sub === 'string' && isSafeId(claims.sub) ? claims.sub : undefined;
}
