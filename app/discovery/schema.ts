import type * as Catalog from '../../core/Catalog.js'

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses) object. */
export type JsonSchema = Record<string, unknown>

/** JSON Schema of an object made of catalog fields. */
export function fromFields(fields: readonly Catalog.Field[]): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [field.name, fromField(field)])),
    required: fields.filter((field) => field.required).map((field) => field.name),
  }
}

/** JSON Schema of one catalog field. */
export function fromField(field: Catalog.Field): JsonSchema {
  return { type: field.type, ...(field.description ? { description: field.description } : {}) }
}

/** The schema used where the interface does not show a payload's shape. */
export const notShown: JsonSchema = {
  type: 'object',
  description: 'Shape not shown by the interface.',
  additionalProperties: true,
}

/** A path or query parameter as discovery lists it: a catalog field, with the schema its route validates it with. */
export type Parameter = Catalog.Field & { /** The route's JSON Schema of it, where it has one. */ schema?: JsonSchema }

/** Input and output schemas of an entry, split by location. */
export type OfEntry = {
  /** Query parameters. */
  query: readonly Parameter[]
  /** Path parameters. */
  path: readonly Parameter[]
  /** JSON body; `undefined` for a method without one. */
  body: JsonSchema | undefined
  /** The answer. */
  output: JsonSchema
}

/** The JSON Schemas a route validates its query and body with (TypeBox schemas are JSON Schemas). */
export type Input = {
  /** Query parameters, an object schema. */
  query?: JsonSchema | undefined
  /** JSON body. */
  body?: JsonSchema | undefined
}

/**
 * An entry's schemas with what its route really accepts: the route's body schema in place of the catalog's fields
 * (every name it takes, the original gateway's among them, with units and defaults), a catalog field's description
 * kept where the route's has none; the catalog's query parameters first, then the route's others.
 */
export function withInput(schemas: OfEntry, input: Input | undefined): OfEntry {
  if (!input) return schemas
  const queryProperties = propertiesOf(input.query)
  const queryRequired = new Set((input.query?.required as string[] | undefined) ?? [])
  const listed = new Set(schemas.query.map((field) => field.name))
  const query: Parameter[] = [
    ...schemas.query.map((field) => {
      const schema = queryProperties[field.name]
      return schema ? { ...field, schema: plain(schema) } : field
    }),
    ...Object.entries(queryProperties)
      .filter(([name]) => !listed.has(name))
      .map(([name, schema]) => ({
        name,
        type: typeof schema.type === 'string' ? (schema.type as Catalog.FieldType) : 'string',
        required: queryRequired.has(name),
        in: 'query' as const,
        ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
        schema: plain(schema),
      })),
  ]
  if (!input.body || schemas.body === undefined || input.body.type !== 'object') return { ...schemas, query }
  const body = plain(input.body)
  const properties = propertiesOf(body)
  const catalog = propertiesOf(schemas.body)
  for (const [name, field] of Object.entries(catalog))
    if (properties[name] && properties[name].description === undefined && field.description !== undefined)
      properties[name] = { ...properties[name], description: field.description }
  return { ...schemas, query, body: { ...body, properties } }
}

/** The properties of an object schema, by name. */
function propertiesOf(schema: JsonSchema | undefined): Record<string, JsonSchema> {
  return (schema?.properties as Record<string, JsonSchema> | undefined) ?? {}
}

/** A schema as plain JSON: TypeBox's symbol keys and transforms left out. */
function plain(schema: JsonSchema): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema
}

/** Input and output schemas of an entry, split by location. */
export function ofEntry(entry: Catalog.Entry): OfEntry {
  const body = entry.request.filter((field) => field.in === 'body')
  const hasBody = entry.method !== 'GET'
  return {
    query: entry.request.filter((field) => field.in === 'query'),
    path: entry.request.filter((field) => field.in === 'path'),
    body: hasBody ? (entry.shapesShown ? fromFields(body) : notShown) : undefined,
    output: entry.shapesShown ? fromFields(entry.response) : notShown,
  }
}
