/**
 * How a record with bigint amounts and dates is kept as JSON and read back, declared once per record type: its fields
 * in the order they are stored, each with its kind. Serializing writes exactly those fields in that order (so that a
 * record's JSON is the same bytes whatever order its object was built in); deserializing reads them back, so that
 * `deserialize(serialize(record))` equals `record` and `serialize(deserialize(json))` is `json` again.
 *
 * ```ts
 * type Payout = { to: Address; amount: bigint; at: Date; memo: string | undefined }
 * const payouts = Codec.from<Payout, Json>({ to: 'json', amount: 'bigint', at: 'date', memo: Codec.nullable('json') })
 * payouts.serialize({ to, amount: 1_500_000n, at, memo: undefined }) // { to, amount: '1500000', at: '2030-…Z', memo: null }
 * ```
 */

/** How one field is kept in JSON. */
export type Kind =
  /** As it is: a string, number, boolean, `null`, or an object or array of those. */
  | 'json'
  /** A bigint as its decimal string, e.g. `"1500000"`. */
  | 'bigint'
  /** A date as ISO 8601, e.g. `"2030-01-31T00:00:00.000Z"`. */
  | 'date'
  /** A date as milliseconds since the epoch. */
  | 'millis'
  /** An object, by its own fields. */
  | Fields
  /** An array whose items are all of one kind. */
  | readonly [Kind]
  /** See {@link nullable}. */
  | Nullable
  /** See {@link withDefault}. */
  | WithDefault

/** A record's fields in the order they are stored, each with its {@link Kind}. */
export type Fields = { readonly [field: string]: Kind }

/** A field an absent value of is stored as `null`; `null`, or no field at all (older records), reads back as absent. */
export class Nullable {
  constructor(
    /** How a present value is kept. */
    readonly kind: Kind,
  ) {}
}

/** A field older records lack, read back as a default value; it is always written. */
export class WithDefault {
  constructor(
    /** How the value is kept. */
    readonly kind: Kind,
    /** What a record without the field reads back as, in its JSON form (copied on every read). */
    readonly json: unknown,
  ) {}
}

/** A field of `kind` whose absent value is stored as `null` (see {@link Nullable}). */
export function nullable<const kind extends Kind>(kind: kind): Nullable & { readonly kind: kind } {
  return new Nullable(kind) as Nullable & { readonly kind: kind }
}

/** A field of `kind` that records stored before it existed lack, read back as `json` (see {@link WithDefault}). */
export function withDefault<const kind extends Kind>(kind: kind, json: unknown): WithDefault & { readonly kind: kind } {
  return new WithDefault(kind, json) as WithDefault & { readonly kind: kind }
}

/** A record type's codec: the record to its JSON form and back. */
export type Codec<value, json> = {
  /** The record as JSON-safe values: exactly its declared fields, in their declared order. */
  serialize: (value: value) => json
  /** The record back from {@link Codec.serialize}'s form, or from a record stored before a field was added. */
  deserialize: (json: json) => value
}

/**
 * The codec of a record type from its fields (see {@link Shape}: every field of every variant is named, once, with a
 * kind its type allows). A field absent from a record is left out of its JSON, unless it is {@link nullable}.
 */
export function from<value, json>(fields: Shape<value>): Codec<value, json> {
  const declared = fields as Fields
  return {
    serialize: (value) => writeFields(declared, value as Record<string, unknown>) as json,
    deserialize: (json) => readFields(declared, json as Record<string, unknown>) as value,
  }
}

/**
 * The fields a codec of `value` must declare: every key of every variant of `value`, each with a kind its type
 * allows (`'bigint'` for a bigint, `'date'` or `'millis'` for a date, nested fields or `'json'` for an object, ...).
 */
export type Shape<value> = { readonly [key in KeysOf<value>]-?: FieldKind<FieldOf<value, key>> }

/** Every key of every member of a union. */
type KeysOf<value> = value extends unknown ? keyof value : never

/** The type of `key` across the members of a union: `undefined` where a member lacks it. */
type FieldOf<value, key extends PropertyKey> = value extends unknown
  ? key extends keyof value
    ? value[key]
    : undefined
  : never

/** The kinds a field of type `field` may be kept as. */
type FieldKind<field> =
  | KindOf<NonNullable<field>>
  | (undefined extends field ? Nullable & { readonly kind: KindOf<NonNullable<field>> } : never)
  | (WithDefault & { readonly kind: KindOf<NonNullable<field>> })

/** The kinds a present value of type `field` may be kept as. */
type KindOf<field> = [field] extends [bigint]
  ? 'bigint'
  : [field] extends [Date]
    ? 'date' | 'millis'
    : [field] extends [readonly (infer item)[]]
      ? 'json' | readonly [KindOf<item>]
      : [field] extends [object]
        ? 'json' | Shape<field>
        : 'json'

function writeFields(fields: Fields, value: Record<string, unknown>): Record<string, unknown> {
  const json: Record<string, unknown> = {}
  for (const [name, kind] of Object.entries(fields)) {
    const field = value[name]
    if (field !== undefined) json[name] = write(kind, field)
    else if (kind instanceof Nullable) json[name] = null
  }
  return json
}

function readFields(fields: Fields, json: Record<string, unknown>): Record<string, unknown> {
  const value: Record<string, unknown> = {}
  for (const [name, kind] of Object.entries(fields)) {
    const field = json[name]
    if (kind instanceof WithDefault && (field === undefined || field === null))
      value[name] = read(kind.kind, structuredClone(kind.json))
    else if (field !== undefined && !(field === null && kind instanceof Nullable)) value[name] = read(kind, field)
  }
  return value
}

function write(kind: Kind, value: unknown): unknown {
  if (kind instanceof Nullable || kind instanceof WithDefault) return write(kind.kind, value)
  if (kind === 'json') return value
  if (kind === 'bigint') return (value as bigint).toString()
  if (kind === 'date') return (value as Date).toISOString()
  if (kind === 'millis') return (value as Date).getTime()
  if (isList(kind)) return (value as readonly unknown[]).map((item) => write(kind[0], item))
  return writeFields(kind, value as Record<string, unknown>)
}

function read(kind: Kind, json: unknown): unknown {
  if (kind instanceof Nullable || kind instanceof WithDefault) return read(kind.kind, json)
  if (kind === 'json') return json
  if (kind === 'bigint') return BigInt(json as string)
  if (kind === 'date' || kind === 'millis') return new Date(json as string | number)
  if (isList(kind)) return (json as readonly unknown[]).map((item) => read(kind[0], item))
  return readFields(kind, json as Record<string, unknown>)
}

function isList(kind: Fields | readonly [Kind]): kind is readonly [Kind] {
  return Array.isArray(kind)
}
