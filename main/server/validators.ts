/**
 * The route validator: query strings and path parameters are text, so their numbers and booleans are converted
 * (`?limit=5`, `?verbose=true`, `?x=a` as a list of one); a JSON body already has types, so it is checked as sent:
 * `"_id": 5`, `"principals": "group:Admin"` or an unknown field where the schema lists them all is a 400 that names
 * the field, never converted or dropped without a word.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';

type Options = { customOptions?: Record<string, unknown> } & Record<string, unknown>;
type BuildValidator = (externalSchemas: Record<string, unknown>, options: Options) => FastifySchemaCompiler<unknown>;

const pool = AjvCompiler() as unknown as BuildValidator;

/** Ajv options of text parts (query, params, headers): as Fastify's defaults, types coerced. */
export const TEXT_PART_OPTIONS = { coerceTypes: 'array', allErrors: false } as const;
/** Ajv options of JSON bodies: no coercion, unknown fields reported rather than removed. */
export const BODY_OPTIONS = { coerceTypes: false, removeAdditional: false, allErrors: false } as const;

/** For `schemaController.compilersFactory.buildValidator`: one compiler per part kind, chosen per schema. */
export const buildValidator: BuildValidator = (externalSchemas, options) => {
  const text = pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...TEXT_PART_OPTIONS } });
  const body = pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...BODY_OPTIONS } });
  return (def) => (def.httpPart === 'body' ? body(def) : text(def));
};
