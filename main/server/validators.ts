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

/** Ajv options of text parts (query, params, headers): as Fastify's defaults, types coerced; `verbose` gives the error its schema (the allowed range). */
export const TEXT_PART_OPTIONS = { coerceTypes: 'array', allErrors: false, verbose: true } as const;
/** Ajv options of JSON bodies: no coercion, unknown fields reported rather than removed. */
export const BODY_OPTIONS = { coerceTypes: false, removeAdditional: false, allErrors: false, verbose: true } as const;

/** For `schemaController.compilersFactory.buildValidator`: one compiler per part kind, chosen per schema. */
export const buildValidator: BuildValidator = (externalSchemas, options) => {
  const text = pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...TEXT_PART_OPTIONS } });
  const body = pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...BODY_OPTIONS } });
  return (def) => (def.httpPart === 'body' ? body(def) : (finiteNumbers(text(def), def.schema) as unknown as ReturnType<FastifySchemaCompiler<unknown>>));
};

type Validate = ((data: unknown, ctx?: unknown) => boolean) & { errors?: unknown[] | null; schemaEnv?: unknown };

/**
 * Ajv turns the query text "1e400" into Infinity and then lets it past `maximum`: a number of a text part that is not
 * finite is refused here, with the field's schema (its range) for the message.
 */
function finiteNumbers(validate: unknown, schema: unknown): Validate {
  const inner = validate as Validate;
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  const wrapped: Validate = (data, ctx) => {
    if (!inner(data, ctx)) {
      wrapped.errors = inner.errors ?? null;
      return false;
    }
    wrapped.errors = null;
    if (data === null || typeof data !== 'object') return true;
    for (const [name, value] of Object.entries(data)) {
      const values: unknown[] = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === 'number' && !Number.isFinite(v))) {
        wrapped.errors = [{ instancePath: `/${name}`, schemaPath: '', keyword: 'maximum', params: {}, message: 'must be a finite number', parentSchema: properties[name] }];
        return false;
      }
    }
    return true;
  };
  if (inner.schemaEnv !== undefined) wrapped.schemaEnv = inner.schemaEnv;
  return wrapped;
}
