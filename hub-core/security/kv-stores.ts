import { SecretCipher } from './secret-cipher.js';
import type { Db } from '../storage/index.js';
import { badRequest, notFound } from '../base/index.js';
import { checkVariableNames } from '../base/index.js';
import { secretMask, type Mask } from './secret-mask.js';

/** Environment variables: plain values, readable, used by `$ENV(...)` in config. */
export class EnvStore {
  constructor(private readonly db: Db) {}

  private readonly listeners = new Set<() => void>();

  /** Be told after every change (the pipe runtimes are built again). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  all(): Record<string, string> {
    const rows = this.db.prepare('SELECT name, value FROM env ORDER BY name').raw().all() as [string, string][];
    return Object.fromEntries(rows);
  }

  get(name: string): string | undefined {
    return this.db.prepare('SELECT value FROM env WHERE name = ?').pluck().get(name) as string | undefined;
  }

  /** Set variables; with `replace` every variable not named is removed. */
  set(vars: Record<string, string>, replace: boolean): void {
    checkVariableNames(Object.keys(vars), 'environment variable');
    this.db.transaction(() => {
      if (replace) this.db.prepare('DELETE FROM env').run();
      const put = this.db.prepare('INSERT INTO env (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value');
      for (const [k, v] of Object.entries(vars)) put.run(k, v);
    })();
    this.changed();
  }

  delete(name: string): void {
    if (this.db.prepare('DELETE FROM env WHERE name = ?').run(name).changes === 0) throw notFound(`environment variable ${JSON.stringify(name)}`);
    this.changed();
  }
}

/** Secrets: write-only from the outside; only names are ever listed. Scope '' is the node, else a system id. */
export class SecretStore {
  constructor(
    private readonly db: Db,
    private readonly cipher: SecretCipher,
  ) {
    // Values stored before they were encrypted are encrypted now.
    const plain = (db.prepare('SELECT scope, name, value FROM secrets').all() as { scope: string; name: string; value: string }[]).filter(
      (r) => !SecretCipher.isEncrypted(r.value),
    );
    if (plain.length > 0) {
      const put = db.prepare('UPDATE secrets SET value = ? WHERE scope = ? AND name = ?');
      db.transaction(() => {
        for (const r of plain) put.run(cipher.encrypt(r.value), r.scope, r.name);
      })();
    }
  }

  private readonly listeners = new Set<() => void>();
  private masker: Mask | undefined;

  /** Be told after every change (the pipe runtimes are built again). */
  onChange(listener: () => void): void {
    this.listeners.add(listener);
  }

  private changed(): void {
    this.masker = undefined;
    for (const l of this.listeners) l();
  }

  /** The text with every secret value (of any scope) in it masked; for what the hub stores, answers or logs. */
  mask(text: string): string {
    if (this.masker === undefined) {
      const stored = this.db.prepare('SELECT value FROM secrets').pluck().all() as string[];
      const values: string[] = [];
      for (const v of stored) {
        try {
          values.push(this.cipher.decrypt(v));
        } catch {
          // A value this process cannot read (its key is elsewhere) is never substituted, so it cannot leak either.
        }
      }
      this.masker = secretMask(values);
    }
    return this.masker(text);
  }

  names(scope = ''): string[] {
    return this.db.prepare('SELECT name FROM secrets WHERE scope = ? ORDER BY name').pluck().all(scope) as string[];
  }

  /** For the engine's `$SECRET(...)` substitution only; never for a response. */
  value(name: string, scope = ''): string | undefined {
    const stored = this.db.prepare('SELECT value FROM secrets WHERE scope = ? AND name = ?').pluck().get(scope, name) as string | undefined;
    return stored === undefined ? undefined : this.cipher.decrypt(stored);
  }

  set(values: Record<string, string>, replace: boolean, scope = ''): void {
    for (const [k, v] of Object.entries(values)) {
      if (typeof v !== 'string') throw badRequest(`secret ${JSON.stringify(k)} must have a string value`);
    }
    checkVariableNames(Object.keys(values), 'secret');
    this.db.transaction(() => {
      if (replace) this.db.prepare('DELETE FROM secrets WHERE scope = ?').run(scope);
      const put = this.db.prepare(
        'INSERT INTO secrets (scope, name, value) VALUES (?, ?, ?) ON CONFLICT(scope, name) DO UPDATE SET value = excluded.value',
      );
      for (const [k, v] of Object.entries(values)) put.run(scope, k, this.cipher.encrypt(v));
    })();
    this.changed();
  }

  delete(name: string, scope = ''): void {
    if (this.db.prepare('DELETE FROM secrets WHERE scope = ? AND name = ?').run(scope, name).changes === 0) {
      throw notFound(`secret ${JSON.stringify(name)}`);
    }
    this.changed();
  }

  deleteScope(scope: string): void {
    this.db.prepare('DELETE FROM secrets WHERE scope = ?').run(scope);
    this.changed();
  }
}

/** Small persistent settings of the hub (license, node id, log levels). */
export class KvStore {
  constructor(private readonly db: Db) {}

  get(key: string): string | undefined {
    return this.db.prepare('SELECT value FROM kv WHERE key = ?').pluck().get(key) as string | undefined;
  }

  set(key: string, value: string): void {
    this.db.prepare('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  delete(key: string): void {
    this.db.prepare('DELETE FROM kv WHERE key = ?').run(key);
  }
}
