import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';

/**
 * Schema validation with types coerced only where text is all a client can send. A form, a query
 * string and multipart carry every value as a string (docs/contract.md, Requests), so there `"true"`
 * is true, `"5"` is 5 and `a` is `[a]`. JSON has types, and a known field of the wrong type is a 422
 * (same section): coercing JSON too would store `{"data": 12345}` as
 * the text "12345" and take `{"channelId": ["g"]}` as "g".
 *
 * Each body schema is compiled twice (one Ajv instance coerces, the other does not) and the body's
 * parser tells which applies: the form and multipart readers mark what they made (`markTextBody`).
 * Those are the rare ones: marking every JSON body instead cost the message create 1% of its CPU.
 */
const textBodies = new WeakSet<object>();

export function markTextBody(value: unknown): void {
  if (value !== null && typeof value === 'object') textBodies.add(value);
}

type RouteValidator = FastifySchemaCompiler<unknown>;
type RouteSchema = Parameters<RouteValidator>[0];
type CompilerFactory = (externalSchemas: Record<string, unknown>, options?: { customOptions?: Record<string, unknown> }) => RouteValidator;

/**
 * For Fastify's `schemaController.compilersFactory.buildValidator` (typed as the library's pool, whose
 * declared return type is not the route compiler Fastify actually calls).
 */
export function buildValidatorFactory(): BuildCompilerFromPool {
  // The pool of @fastify/ajv-compiler, Fastify's own: the same Ajv setup (formats, defaults) as before.
  const pool = AjvCompiler() as unknown as CompilerFactory;
  const factory: CompilerFactory = (externalSchemas, options = {}) => {
    const coercing = pool(externalSchemas, options);
    const exact = pool(externalSchemas, { ...options, customOptions: { ...options.customOptions, coerceTypes: false } });
    return (route: RouteSchema) => {
      const lenient = coercing(route);
      if (route.httpPart !== 'body') return lenient;
      const strict = exact(route);
      const validate = (data: unknown) => {
        const chosen = data !== null && typeof data === 'object' && textBodies.has(data) ? lenient : strict;
        const result = chosen(data);
        validate.errors = chosen.errors as FastifySchemaValidationError[] | null | undefined;
        return result;
      };
      validate.errors = null as FastifySchemaValidationError[] | null | undefined;
      return validate;
    };
  };
  return factory as unknown as BuildCompilerFromPool;
}
