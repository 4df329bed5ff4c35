// Saved connections to remote portals and instances. The list (names, URLs) lives in
// <data>/connections.json; each token lives only in the OS keychain under "connection:<id>".
import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { SecretStore } from '../secrets/secret-store.js';
import type { Connection, ConnectionKind } from '../../hub-core/desktop-types.js';
import { readTextFile } from '../../hub-core/base/index.js';

export type { Connection, ConnectionKind };

export interface NewConnection {
  kind: ConnectionKind;
  label: string;
  url: string;
  token: string;
  subscription?: string;
  portal?: string;
  /** Keep it for this session only: listed and usable until the hub stops, the token only in memory. */
  session?: boolean;
}

export class ConnectionStore {
  private readonly file: string;
  /** Session-only connections and their tokens: never written anywhere. */
  private readonly sessionOnly: Connection[] = [];
  private readonly sessionTokens = new Map<string, string>();

  constructor(
    dataDir: string,
    readonly secrets: SecretStore,
  ) {
    this.file = join(dataDir, 'connections.json');
  }

  list(): Connection[] {
    return [...this.saved(), ...this.sessionOnly];
  }

  private saved(): Connection[] {
    if (!existsSync(this.file)) return [];
    return JSON.parse(readTextFile(this.file)) as Connection[];
  }

  get(id: string): Connection | undefined {
    return this.list().find((c) => c.id === id);
  }

  private save(all: Connection[]): void {
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
    renameSync(tmp, this.file);
  }

  /**
   * Stores the token in the keychain first: a connection is listed only once its secret is safe. If the
   * list cannot be written, the secret is taken back out, so no orphan is left in the keychain.
   */
  async add(input: NewConnection): Promise<Connection> {
    const existing = this.saved();
    const connection: Connection = {
      id: randomUUID(),
      kind: input.kind,
      label: input.label,
      url: input.url.replace(/\/+$/, ''),
      created: new Date().toISOString(),
      ...(input.subscription !== undefined ? { subscription: input.subscription } : {}),
      ...(input.portal !== undefined ? { portal: input.portal } : {}),
    };
    if (input.session === true) {
      const kept: Connection = { ...connection, session: true };
      this.sessionOnly.push(kept);
      this.sessionTokens.set(kept.id, input.token);
      return kept;
    }
    // A registry that is shared needs no token: nothing goes to the keychain.
    if (input.token !== '') await this.secrets.set(accountOf(connection.id), input.token);
    try {
      this.save([...existing, connection]);
    } catch (e) {
      if (input.token !== '') await this.secrets.delete(accountOf(connection.id)).catch(() => false);
      throw e;
    }
    return connection;
  }

  /** Links an instance to a portal subscription (its alert badges come from there), or unlinks it with null. */
  link(id: string, to: { portal: string; subscription: string } | null): Connection | undefined {
    const session = this.sessionOnly.findIndex((c) => c.id === id);
    if (session >= 0) {
      const { portal: _p, subscription: _s, ...rest } = this.sessionOnly[session]!;
      this.sessionOnly[session] = to === null ? rest : { ...rest, portal: to.portal, subscription: to.subscription };
      return this.sessionOnly[session];
    }
    const all = this.saved();
    const i = all.findIndex((c) => c.id === id);
    if (i === -1) return undefined;
    const { portal: _p, subscription: _s, ...rest } = all[i]!;
    all[i] = to === null ? rest : { ...rest, portal: to.portal, subscription: to.subscription };
    this.save(all);
    return all[i];
  }

  async setToken(id: string, token: string): Promise<void> {
    if (this.sessionTokens.has(id)) this.sessionTokens.set(id, token);
    else await this.secrets.set(accountOf(id), token);
  }

  /** The token, for the host process only; never hand it to the renderer. */
  async token(id: string): Promise<string | null> {
    const session = this.sessionTokens.get(id);
    if (session !== undefined) return session;
    return this.secrets.get(accountOf(id));
  }

  /** Removes the connection and deletes its secret from the keychain (a session-only one: from memory). */
  async remove(id: string): Promise<boolean> {
    const session = this.sessionOnly.findIndex((c) => c.id === id);
    if (session >= 0) {
      this.sessionOnly.splice(session, 1);
      this.sessionTokens.delete(id);
      return true;
    }
    const all = this.saved();
    if (!all.some((c) => c.id === id)) return false;
    await this.secrets.delete(accountOf(id));
    this.save(all.filter((c) => c.id !== id));
    return true;
  }
}

export function accountOf(id: string): string {
  return `connection:${id}`;
}
