import { Type, type TSchema } from '@sinclair/typebox';

/**
 * Schema pieces shared by every surface. Limits are those of docs/contract.md, Limits: ids at most 50
 * characters, arrays at most 100 items. Ids are printable and never hold a path or query delimiter,
 * because they travel in URL paths, nor a control character (PostgreSQL refuses NUL in text).
 */
export const Id = (description?: string) =>
  // Not `.` or `..` either: ids travel in URL paths, where every HTTP client resolves those away.
  Type.String({ minLength: 1, maxLength: 50, pattern: '^(?!\\.\\.?$)[^\\s/?#%\\\\\\x00-\\x1f\\x7f]+$', ...(description ? { description } : {}) });

export const IdList = (description?: string, minItems = 0) => Type.Array(Id(), { minItems, maxItems: 100, ...(description ? { description } : {}) });

export const Tags = (description?: string) =>
  Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 100, ...(description ? { description } : {}) });

/** A JSON object of the caller's own; its serialized size is checked by the service. */
export const Metadata = (description?: string) => Type.Object({}, { additionalProperties: true, ...(description ? { description } : {}) });

export const ChannelIdParams = Type.Object({ channelId: Id('The channel id') });

/** A channelSegment: the segment columns are 32-bit integers, and a larger number must be a 4xx, not a database error. */
export const Segment = Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 });

export const Success = Type.Object({ status: Type.Literal('success') });

export function optional<T extends TSchema>(schema: T) {
  return Type.Optional(schema);
}

/** The largest serialized metadata or custom data accepted (docs/contract.md, Limits). */
export const MAX_JSON_BYTES = 100 * 1024;

/** A string enum as JSON Schema `enum`, so an unknown value is reported as such (400000). */
export const StringEnum = <const T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) });

/** A reaction name travels in client URL paths too, so it follows the id rules (no spaces, `/`, `?`, `#`, `%`). */
export const ReactionName = (description = 'The reaction, e.g. like') => Id(description);

/**
 * Schema pieces every record schema uses. Response schemas describe and never constrain (no lengths,
 * no patterns; `date-time` only on what `iso` writes): a nullable field is an `anyOf` the serializer
 * validates, and a stored value outside a constraint would turn a good answer into a 500.
 */
export const IsoTime = (description: string) => Type.String({ format: 'date-time', description });

export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

/** A JSON object whose keys the caller chose (metadata, custom data, extras). */
export const OpenObject = (description: string) => Type.Object({}, { additionalProperties: true, description });

/** `{reactionName: count}`, as messages and posts carry it. */
export const ReactionCounts = (description: string) => Type.Record(Type.String(), Type.Integer(), { description });
