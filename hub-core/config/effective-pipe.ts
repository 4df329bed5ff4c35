import type { JsonObject, JsonValue } from '../base/index.js';

/** A pipe's configuration with every default filled in, as the hub runs it (see effectivePipeConfig). */
export interface EffectivePipe extends JsonObject {
  _id: string;
  type: string;
  source: JsonObject & { type: string };
  sink: JsonObject & { type: string };
  pump: JsonObject;
  principals: JsonValue[];
}
