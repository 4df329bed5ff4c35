import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

export const ADMIN = 'group:Admin';
/** What a user gets unless an admin grants more: everything but the admin-only routes. */
export const DEVELOPER = 'group:Developer';

export interface TokenClaims {
  sub: string;
  principals: string[];
  /** "user" for tokens of a configured user (refused once the user is deleted), else "local". */
  kind?: 'user' | 'local';
}

/**
 * A token's `principals` claim as the hosted service writes it: an object mapping the subscription id to its
 * principals (the service's own command-line client reads the subscription id from its first key). Older tokens of
 * this hub carry a plain array; both forms are read.
 */
export function readPrincipals(claim: unknown): string[] {
  const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : []);
  if (Array.isArray(claim)) return strings(claim);
  if (claim !== null && typeof claim === 'object') return [...new Set(Object.values(claim as Record<string, unknown>).flatMap(strings))];
  return [];
}

/**
 * Signs and checks the hub's JWTs with an HS256 key kept (mode 0600) in the data directory.
 *
 * Lifetimes: the admin token in <data>/access-token and browser sessions ("local" tokens) carry the id of the hub's
 * start that issued them and are refused after a restart; a session also ends at logout (revoked here) or after 12 h.
 * Tokens of configured users (POST /api/jwt) last 12 h across restarts, until the user is deleted.
 */
export class TokenService {
  /** This start of the hub: "local" tokens of other starts are refused. */
  private readonly launch = randomBytes(12).toString('base64url');
  /** Revoked token ids until their expiry (seconds), so a copied session cookie dies at logout. */
  private readonly revoked = new Map<string, number>();

  private constructor(
    private readonly key: Uint8Array,
    /** The key of the `principals` object: this hub's node id plays the subscription id. */
    private readonly subscriptionId: string,
  ) {}

  static open(dataDir: string, subscriptionId = 'datahub-desktop'): TokenService {
    const file = join(dataDir, 'signing-key');
    let key: Buffer;
    if (existsSync(file)) {
      chmodSync(file, 0o600); // a copied or restored data dir may have loosened it
      key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
      if (key.length < 32) throw new Error(`${file} holds a key shorter than 32 bytes; delete it to make a new one`);
    } else {
      key = randomBytes(32);
      writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    }
    return new TokenService(new Uint8Array(key), subscriptionId);
  }

  /**
   * A short, public id of this hub's data folder (a hash of its signing key): it names the browser session cookie,
   * because cookies ignore the port and two local hubs would otherwise overwrite each other's session.
   */
  get hubId(): string {
    return createHash('sha256').update('datahub-session-cookie\0').update(this.key).digest('hex').slice(0, 12);
  }

  async issue(claims: TokenClaims, expiresIn?: string): Promise<string> {
    const kind = claims.kind ?? 'local';
    let jwt = new SignJWT({ principals: { [this.subscriptionId]: claims.principals }, kind, ...(kind === 'local' ? { launch: this.launch } : {}) })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.sub)
      .setIssuer('datahub-desktop')
      .setIssuedAt()
      .setJti(randomBytes(8).toString('hex'));
    if (expiresIn) jwt = jwt.setExpirationTime(expiresIn);
    return jwt.sign(this.key);
  }

  /** The token's claims, or a reason it was refused. */
  async verify(token: string): Promise<TokenClaims | { refused: string }> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: 'datahub-desktop', algorithms: ['HS256'] });
      if (payload['kind'] !== 'user' && payload['launch'] !== this.launch) {
        return { refused: 'the token was issued by an earlier start of the hub; each start writes a new one to <data>/access-token' };
      }
      if (payload.jti !== undefined && this.revoked.has(payload.jti)) return { refused: 'this session was signed out' };
      const principals = readPrincipals(payload['principals']);
      return { sub: payload.sub ?? '', principals, kind: payload['kind'] === 'user' ? 'user' : 'local' };
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) return { refused: 'the token has expired' };
      return { refused: 'the token is not valid for this hub' };
    }
  }

  /** Refuse a token from now on (logout). Unknown or invalid tokens are ignored. */
  async revoke(token: string): Promise<void> {
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: 'datahub-desktop', algorithms: ['HS256'] });
      const now = Math.floor(Date.now() / 1000);
      for (const [jti, exp] of this.revoked) if (exp < now) this.revoked.delete(jti);
      if (payload.jti !== undefined) this.revoked.set(payload.jti, payload.exp ?? Number.MAX_SAFE_INTEGER);
    } catch {
      // nothing to revoke
    }
  }

  /** Write this start's admin token for local tools to `<data>/access-token` (mode 0600); it is valid until the hub stops. */
  async writeAccessToken(dataDir: string): Promise<string> {
    const token = await this.issue({ sub: 'local-admin', principals: [ADMIN] });
    const file = join(dataDir, 'access-token');
    writeFileSync(file, token + '\n', { mode: 0o600 });
    chmodSync(file, 0o600);
    return token;
  }
}
