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

/** Input and output schemas of an entry, split by location. */
export function ofEntry(entry: Catalog.Entry): {
  query: readonly Catalog.Field[]
  path: readonly Catalog.Field[]
  body: JsonSchema | undefined
  output: JsonSchema
} {
  const body = entry.request.filter((field) => field.in === 'body')
  const hasBody = entry.method !== 'GET'
  return {
    query: entry.request.filter((field) => field.in === 'query'),
    path: entry.request.filter((field) => field.in === 'path'),
    body: hasBody ? (entry.shapesShown ? fromFields(body) : notShown) : undefined,
    output: entry.shapesShown ? fromFields(entry.response) : notShown,
  }
}
