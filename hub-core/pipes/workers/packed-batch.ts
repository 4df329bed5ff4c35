// A batch as it crosses from a pipe worker to the hub's thread. The prepared entities: one string holding every id
// and body, their lengths, the hashes (32 hex characters each) and the deleted flags; the dependencies are packed
// already (../packed-dependencies.ts). Copying a few long strings between threads costs a fraction of cloning tens of
// thousands of small objects, and the hub's thread (the one writer every run waits for) is the side that pays most of
// the cloning.

import type { PreparedEntity } from '../../base/index.js';

export interface PackedEntities {
  /** id, then body, of every entity in order. */
  readonly text: string;
  /** [id length, body length] per entity. */
  readonly lengths: Uint32Array<ArrayBuffer>;
  readonly hashes: string;
  /** 1: the entity is a delete. */
  readonly deleted: Uint8Array<ArrayBuffer>;
}

const HASH_LENGTH = 32;

export function packEntities(prepared: readonly PreparedEntity[]): PackedEntities {
  const parts = new Array<string>(prepared.length * 2);
  const hashes = new Array<string>(prepared.length);
  const lengths = new Uint32Array(prepared.length * 2);
  const deleted = new Uint8Array(prepared.length);
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i]!;
    if (p.hash.length !== HASH_LENGTH) throw new Error(`a prepared entity's hash has ${p.hash.length} characters`);
    parts[2 * i] = p.id;
    parts[2 * i + 1] = p.body;
    lengths[2 * i] = p.id.length;
    lengths[2 * i + 1] = p.body.length;
    hashes[i] = p.hash;
    deleted[i] = p.deleted ? 1 : 0;
  }
  return { text: parts.join(''), lengths, hashes: hashes.join(''), deleted };
}

export function unpackEntities(packed: PackedEntities): PreparedEntity[] {
  const { text, lengths, hashes, deleted } = packed;
  const out = new Array<PreparedEntity>(deleted.length);
  let at = 0;
  for (let i = 0; i < deleted.length; i++) {
    const id = text.slice(at, (at += lengths[2 * i]!));
    const body = text.slice(at, (at += lengths[2 * i + 1]!));
    out[i] = { id, deleted: deleted[i] === 1, body, hash: hashes.slice(HASH_LENGTH * i, HASH_LENGTH * (i + 1)) };
  }
  return out;
}
