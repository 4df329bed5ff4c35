import { randomBytes, scrypt, scryptSync, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { Db } from '../storage/index.js';
import { badRequest, notFound } from '../base/index.js';

export interface User {
  email: string;
  principals: string[];
}

const SCRYPT = { N: 16384, r: 8, p: 1 } as const;

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const key = scryptSync(password, salt, 32, SCRYPT);
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

function scryptAsync(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, length, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** Checks a password on libuv's thread pool: the hub keeps answering while scrypt works. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
  return timingSafeEqual(expected, actual);
}

/** Users who may obtain tokens with `POST /api/jwt`; passwords are kept only as scrypt hashes. */
export class UserStore {
  constructor(private readonly db: Db) {}

  list(): User[] {
    const rows = this.db.prepare('SELECT email, principals FROM users ORDER BY email').all() as { email: string; principals: string }[];
    return rows.map((r) => ({ email: r.email, principals: JSON.parse(r.principals) as string[] }));
  }

  set(email: string, password: string, principals: string[]): User {
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw badRequest(`invalid email ${JSON.stringify(email)}`);
    if (password.length < 8) throw badRequest('password too short', 'a password needs at least 8 characters');
    this.db
      .prepare(
        `INSERT INTO users (email, password_hash, principals) VALUES (?, ?, ?)
         ON CONFLICT(email) DO UPDATE SET password_hash = excluded.password_hash, principals = excluded.principals`,
      )
      .run(email, hashPassword(password), JSON.stringify(principals));
    return { email, principals };
  }

  exists(email: string): boolean {
    return this.db.prepare('SELECT 1 FROM users WHERE email = ?').get(email) !== undefined;
  }

  delete(email: string): void {
    if (this.db.prepare('DELETE FROM users WHERE email = ?').run(email).changes === 0) throw notFound(`user ${JSON.stringify(email)}`);
  }

  /** The user when the password matches, else undefined (same work either way). */
  async authenticate(email: string, password: string): Promise<User | undefined> {
    const row = this.db.prepare('SELECT email, password_hash, principals FROM users WHERE email = ?').get(email) as
      | { email: string; password_hash: string; principals: string }
      | undefined;
    const ok = await verifyPassword(password, row?.password_hash ?? DUMMY_HASH);
    return row && ok ? { email: row.email, principals: JSON.parse(row.principals) as string[] } : undefined;
  }
}

// Checked when the user is unknown, for the same work as a known one: a random key under the same parameters, which no
// password matches (made without running scrypt, which took every process and thread that loads this file ~0.1 s).
const DUMMY_HASH = `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${randomBytes(16).toString('base64')}$${randomBytes(32).toString('base64')}`;
