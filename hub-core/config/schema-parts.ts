// Building blocks of the configuration schema (config-schema.ts), shared with the source and sink type modules.

import type { JsonObject } from '../base/index.js';

/** A source or sink type's options in the configuration schema. */
export interface TypeOptions {
  required?: string[];
  properties: JsonObject;
}

export const VARIABLE = '^\\$(ENV|SECRET)\\([^)]*\\)$';

export const str = (description: string, extra: JsonObject = {}): JsonObject => ({ type: 'string', description, ...extra });
export const bool = (description: string): JsonObject => ({ type: ['boolean', 'string'], pattern: VARIABLE, description });
/** A number, or a whole-value "$ENV(...)" that the hub substitutes at run time. */
export const num = (description: string, extra: JsonObject = {}): JsonObject => ({ type: ['number', 'string'], pattern: VARIABLE, description, ...extra });
export const int = (description: string, extra: JsonObject = {}): JsonObject => ({ type: ['integer', 'string'], pattern: VARIABLE, description, ...extra });
export const strings = (description: string, extra: JsonObject = {}): JsonObject => ({ type: 'array', items: { type: 'string' }, description, ...extra });
export const ref = (name: string): JsonObject => ({ $ref: `#/definitions/${name}` });

export const headers: JsonObject = {
  type: 'object',
  description: 'HTTP headers sent with every request; values may use "$ENV(name)", and "$SECRET(name)" in a system (a pipe\'s $SECRET stays as written)',
  additionalProperties: { type: 'string' },
};

export const datasetList = strings('source datasets, each "<dataset-id>" or "<dataset-id> <alias>"', { minItems: 1 });
