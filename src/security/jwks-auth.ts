/**
 * @module Authentication by an identity provider's JSON Web Key Set (Auth0,
 * Clerk, Supabase, Keycloak, Okta … all publish one): a Mastra auth provider,
 * so Mastra's own routes and ours verify tokens the same way.
 */
import type { IUserProvider, User } from '@mastra/core/auth';
import { MastraAuthProvider } from '@mastra/core/server';
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { bearerToken } from './bearer-token.ts';
import { REQUIRED_CLAIMS, subjectOf } from './token-claims.ts';

export interface JwksAuthOptions {
  jwksUrl: string;
  /** Required `iss` claim, when set. */
  issuer?: string;
  /** Required `aud` claim: the identity provider signs its other applications' tokens with the same keys. */
  audience: string;
}

// Asymmetric algorithms only: a JWKS holds public keys, so an HMAC token "signed" with one is a forgery.
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/** The key set could not be fetched (unreachable, slow, not a key set): a token cannot be checked, whatever it is. */
export class KeySetUnavailable extends Error {
  override readonly name = 'KeySetUnavailable';
  /** What the failure line names when no cause does: the answer's status (`HTTP_503`), or none. */
  readonly code?: string;

  constructor(message: string, options: { cause?: unknown; code?: string } = {}) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

/**
 * After the key set could not be fetched, how long no new fetch is tried. jose only holds off after a success: each
 * request would fetch again (and wait up to its 5 s timeout), so anyone could drive fetches to the identity provider
 * while it fails. Keys already fetched still check their tokens meanwhile.
 */
export const REFETCH_AFTER_FAILURE_MS = 10_000;

/** What jose throws when the key set's answer is no key set (not JSON, not a set), not the token's lookup in it. */
function isKeySetFailure(error: unknown): boolean {
  return (
    error instanceof KeySetUnavailable ||
    error instanceof errors.JWKSTimeout ||
    error instanceof errors.JWKSInvalid ||
    (error instanceof errors.JOSEError && error.code === 'ERR_JOSE_GENERIC')
  );
}

/** The remote key set, whose own failures are told apart from a token that names no key of it. */
function remoteKeys(url: URL): JWTVerifyGetKey {
  let lastFailure: { at: number; error: KeySetUnavailable } | undefined;
  const fetchKeySet: typeof fetch = async (input, init) => {
    // A clock set back does not hold fetches off for as long.
    const sinceFailure = lastFailure && Date.now() - lastFailure.at;
    if (sinceFailure !== undefined && sinceFailure >= 0 && sinceFailure < REFETCH_AFTER_FAILURE_MS) throw lastFailure!.error;
    const response = await fetch(input, init).catch((error: unknown) => {
      // jose names its own timeout (JWKSTimeout, ERR_JWKS_TIMEOUT) from a fetch's TimeoutError: it goes on as it is.
      if ((error as Error | undefined)?.name === 'TimeoutError') throw error;
      throw new KeySetUnavailable("the identity provider's key set could not be fetched", { cause: error });
    });
    if (response.status === 200) return response;
    // Not read: the connection is let go. jose follows no redirect (an http:// URL sent on to https:// shows here).
    await response.body?.cancel().catch(() => {});
    throw new KeySetUnavailable(`the key set URL answered ${response.status}`, { code: `HTTP_${response.status}` });
  };
  // jose caches the key set and refetches it when a token names an unknown key id (key rotation).
  const keys = createRemoteJWKSet(url, { [customFetch]: fetchKeySet });
  return async (header, token) => {
    try {
      return await keys(header, token);
    } catch (error) {
      if (!isKeySetFailure(error)) throw error;
      const unavailable = error instanceof KeySetUnavailable ? error : new KeySetUnavailable("the identity provider's key set is no key set", { cause: error });
      if (lastFailure?.error !== unavailable) lastFailure = { at: Date.now(), error: unavailable };
      throw unavailable;
    }
  };
}

export class JwksAuth extends MastraAuthProvider<JWTPayload> implements IUserProvider {
  private readonly keys: JWTVerifyGetKey;
  private readonly options: JwksAuthOptions;

  constructor(options: JwksAuthOptions) {
    super({ name: 'jwks' });
    this.options = options;
    this.keys = remoteKeys(new URL(options.jwksUrl));
  }

  async authenticateToken(token: string): Promise<JWTPayload | null> {
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: ALGORITHMS,
        requiredClaims: REQUIRED_CLAIMS,
      });
      return payload;
    } catch (error) {
      if (error instanceof KeySetUnavailable) throw error;
      return null;
    }
  }

  async authorizeUser(user: JWTPayload): Promise<boolean> {
    return subjectOf(user) !== undefined;
  }

  /**
   * Who the request's token stands for. Studio asks Mastra's auth capabilities route, which asks this:
   * without it Studio kept its *Authentication Required* form up even with a valid token.
   */
  async getCurrentUser(request: Request): Promise<User | null> {
    const token = bearerToken(request.headers.get('authorization'));
    // Studio's sign-in state: with the key set out of reach, no one is signed in.
    const claims = token ? await this.authenticateToken(token).catch(() => null) : null;
    // A subject the routes refuse is no one signed in: Studio would show a user whose every call is a 401.
    const id = claims ? subjectOf(claims) : undefined;
    return id ? { id } : null;
  }

  /** There is no user directory here: the identity provider keeps it. */
  async getUser(): Promise<User | null> {
    return null;
  }
}
