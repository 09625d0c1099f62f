/**
 * @module The service's Mastra auth provider, from the configuration: an
 * HS256 shared secret (`MastraJwtAuth`), an identity provider's JWKS, or both
 * (`EitherTokenAuth`); none when neither is configured (local use). Either way
 * the token's `sub` claim is the user. Our `authenticate` middleware, ahead of
 * every route, alone makes it Mastra's reserved resource id: a provider that
 * mapped it too would set it again on each Mastra route, after the middleware
 * that takes it off a turn without a thread (native-call.ts).
 */
import { MastraJwtAuth } from '@mastra/auth';
import { CompositeAuth, type MastraAuthProvider, type MastraAuthRequest } from '@mastra/core/server';
import { jwtVerify, type JWTPayload } from 'jose';
import type { Config } from '../../mastra.config.ts';
import { JwksAuth, KeySetUnavailable } from './jwks-auth.ts';
import { REQUIRED_CLAIMS, subjectOf } from './token-claims.ts';

type Claims = { sub?: unknown };

/**
 * Mastra's `MastraJwtAuth`, held to HS256 and to the claims every token needs: it verifies with jsonwebtoken's
 * defaults, which take any HMAC algorithm the secret can sign (HS384, HS512 too) and a token that never expires.
 */
class Hs256Auth extends MastraJwtAuth {
  readonly #key = new TextEncoder().encode(this.secret);

  override async authenticateToken(token: string): Promise<JWTPayload> {
    const { payload } = await jwtVerify(token, this.#key, { algorithms: ['HS256'], requiredClaims: REQUIRED_CLAIMS });
    return payload;
  }
}

/**
 * Mastra's CompositeAuth, but for one thing: it takes any provider's failure for a refused token, and an identity
 * provider out of reach is not the token's fault (503, not 401). That failure is passed on when no provider took it.
 */
class EitherTokenAuth extends CompositeAuth {
  readonly #providers: MastraAuthProvider[];

  constructor(providers: MastraAuthProvider[]) {
    super(providers);
    this.#providers = providers;
  }

  override async authenticateToken(token: string, request: MastraAuthRequest): Promise<unknown> {
    let unavailable: KeySetUnavailable | undefined;
    for (const provider of this.#providers) {
      try {
        const user = await provider.authenticateToken(token, request);
        if (user) return user;
      } catch (error) {
        if (error instanceof KeySetUnavailable) unavailable = error;
      }
    }
    if (unavailable) throw unavailable;
    return null;
  }
}

export function createAuthProvider(auth: Config['auth']): MastraAuthProvider | undefined {
  const providers: MastraAuthProvider[] = [];
  if (auth.jwtSecret) {
    providers.push(
      new Hs256Auth({
        secret: auth.jwtSecret,
        authorizeUser: (user: Claims) => subjectOf(user) !== undefined,
      }) as unknown as MastraAuthProvider,
    );
  }
  if (auth.jwks) providers.push(new JwksAuth(auth.jwks));
  if (providers.length === 0) return undefined;
  return providers.length === 1 ? providers[0] : new EitherTokenAuth(providers);
}
