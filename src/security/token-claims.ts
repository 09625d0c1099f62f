/**
 * @module The claims every bearer token must carry, whichever provider verifies it. `exp`: a token without
 * one never expires, and could be revoked only by rotating the secret or the identity provider's keys.
 * (`sub`, the user, is checked where it is read: `subjectOf`.)
 */
export const REQUIRED_CLAIMS = ['exp'];
