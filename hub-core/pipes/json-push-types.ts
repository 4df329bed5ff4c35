// The JSON Push protocol's parameters and a push's result, shared by the receiver and its write in parts.
import type { WriteResult } from '../storage/index.js';

/** The query parameters of the JSON Push protocol. */
export interface PushParams {
  sequenceId?: string;
  isFull?: boolean;
  requestId?: string;
  previousRequestId?: string;
  isFirst?: boolean;
  isLast?: boolean;
  force?: boolean;
}

export interface PushResult extends WriteResult {
  deleted: number;
  populated: boolean;
}
