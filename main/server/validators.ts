/**
 * The route validator: query strings and path parameters are text, so their numbers and booleans are converted
 * (`?limit=5`, `?verbose=true`, `?x=a` as a list of one); a JSON body already has types, so it is checked as sent:
 * `"_id": 5`, `"principals": "group:Admin"` or an unknown field where the schema lists them all is a 400 that names
 * the field, never converted or dropped without a word.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import { SerializerSelector, type SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';

type Options = { customOptions?: Record<string, unknown> } & Record<string, unknown>;
type BuildValidator = (externalSchemas: Record<string, unknown>, options: Options) => FastifySchemaCompiler<unknown>;

const pool = AjvCompiler() as unknown as BuildValidator;

/** Ajv options of text parts (query, params, headers): as Fastify's defaults, types coerced; `verbose` gives the error its schema (the allowed range). */
export const TEXT_PART_OPTIONS = { coerceTypes: 'array', allErrors: false, verbose: true } as const;
/** Ajv options of JSON bodies: no coercion, unknown fields reported rather than removed. */
export const BODY_OPTIONS = { coerceTypes: false, removeAdditional: false, allErrors: false, verbose: true } as const;

/** For `schemaController.compilersFactory.buildValidator`: one compiler per part kind, chosen per schema. */
export const buildValidator: BuildValidator = (externalSchemas, options) => {
  // An Ajv instance with the shared schemas costs too: made when the first validator of its kind is compiled.
  let text: FastifySchemaCompiler<unknown> | undefined;
  let body: FastifySchemaCompiler<unknown> | undefined;
  const textPart = (def: FastifyRouteSchemaDef<unknown>): Validate =>
    finiteNumbers((text ??= pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...TEXT_PART_OPTIONS } }))(def), def.schema);
  const bodyPart = (def: FastifyRouteSchemaDef<unknown>): Validate =>
    (body ??= pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, ...BODY_OPTIONS } }))(def) as unknown as Validate;
  return (def) => lazyValidator(() => (def.httpPart === 'body' ? bodyPart(def) : textPart(def))) as unknown as ReturnType<FastifySchemaCompiler<unknown>>;
};

let plainText: FastifySchemaCompiler<unknown> | undefined;

/** Query and path parameters of a route whose body is read by a parser of its own (entity batches, pushes): as any route's. */
export function textPartValidator(def: FastifyRouteSchemaDef<unknown>): ReturnType<FastifySchemaCompiler<unknown>> {
  return lazyValidator(() => finiteNumbers((plainText ??= pool({}, { customOptions: TEXT_PART_OPTIONS }))(def), def.schema)) as unknown as ReturnType<
    FastifySchemaCompiler<unknown>
  >;
}

type Validate = ((data: unknown, ctx?: unknown) => boolean) & { errors?: unknown[] | null; schemaEnv?: unknown };

/**
 * Compiling every route's schemas up front took a hub about a second of CPU at each start (two hundred routes, most of
 * them never called in a session): a validator is compiled when its route is first called. DATAHUB_EAGER_SCHEMAS=1
 * compiles them at start, as before (a test starts a hub that way, so a schema Ajv refuses fails there).
 */
export function lazyValidator(compile: () => Validate): Validate {
  if (eagerSchemas()) return compile();
  let inner: Validate | undefined;
  const validate: Validate = (data, ctx) => {
    inner ??= compile();
    const ok = inner(data, ctx);
    validate.errors = inner.errors ?? null;
    return ok;
  };
  // Fastify passes the parent (so that Ajv may coerce a root value) only to a validator with a schemaEnv, as Ajv's have.
  validate.schemaEnv = true;
  return validate;
}

export const eagerSchemas = (): boolean => process.env['DATAHUB_EAGER_SCHEMAS'] === '1';

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

const serializers = SerializerSelector();

/** For `schemaController.compilersFactory.buildSerializer`: Fastify's own, each response serializer compiled when first used. */
export const buildSerializer: SerializerFactory = (externalSchemas, options) => {
  const compile = serializers(externalSchemas, options);
  return (def) => {
    if (eagerSchemas()) return compile(def);
    let inner: ((doc: unknown) => string) | undefined;
    return (doc: unknown) => (inner ??= compile(def))(doc);
  };
};
