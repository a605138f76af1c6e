import {
  bazaarResourceServerExtension,
  type DiscoveryExtension,
  declareDiscoveryExtension,
} from '@x402/extensions/bazaar'
import type * as Catalog from '../../core/Catalog.js'
import * as Schema from './schema.js'

/**
 * The x402 `bazaar` extension of a call's 402, so that facilitators list the resource: how to call it (its query
 * parameters as this call sent them, its path parameters and route template, the body's schema) and the schema of
 * its answer, from the catalog and the module's documented output. A body is described, never echoed: it may carry
 * secrets. Built with @x402/extensions' own declaration and enrichment, as its resource server does.
 */
export function bazaar(parameters: bazaar.Parameters): Record<string, DiscoveryExtension> {
  const { entry, url, output } = parameters
  const schema = Schema.ofEntry(entry)
  // Only the parameters the entry declares: the gateway drops any other before the call.
  const declared = new Set(schema.query.map((field) => field.name))
  const queryParams = Object.fromEntries([...new URL(url).searchParams].filter(([name]) => declared.has(name)))
  const declaration = schema.body
    ? declareDiscoveryExtension({ bodyType: 'json', input: {}, inputSchema: describedOnly(schema.body) })
    : declareDiscoveryExtension({
        input: queryParams,
        inputSchema: {
          // Query parameters travel as strings, as the OpenAPI document declares them.
          properties: Object.fromEntries(
            schema.query.map((field) => [field.name, { ...Schema.fromField(field), type: 'string' }]),
          ),
          required: schema.query.filter((field) => field.required).map((field) => field.name),
        },
      })
  const enriched = bazaarResourceServerExtension.enrichDeclaration!(declaration.bazaar, {
    method: entry.method,
    routePattern: entry.path,
    adapter: { getPath: () => new URL(url).pathname },
  }) as DiscoveryExtension
  return {
    bazaar: {
      ...enriched,
      info: { ...enriched.info, output: { type: 'json', format: 'application/json' } },
      schema: {
        ...enriched.schema,
        properties: {
          ...enriched.schema.properties,
          output: {
            type: 'object',
            properties: { type: { type: 'string' }, format: { type: 'string' }, example: output ?? schema.output },
            required: ['type'],
          },
        },
      },
    } as DiscoveryExtension,
  }
}

export declare namespace bazaar {
  type Parameters = {
    /** The entry called. */
    entry: Catalog.Entry
    /** The call's URL, query included. */
    url: string
    /** The answer's schema where the module documents it (the catalog's otherwise). */
    output?: Schema.JsonSchema | undefined
  }
}

/** Tags of an entry as x402's `ResourceInfo` takes them: at most 5, each 1 to 32 printable ASCII characters. */
export function tagsOf(entry: Catalog.Entry): string[] {
  return [...new Set([entry.category, ...entry.tags])].filter((tag) => /^[\x20-\x7e]{1,32}$/.test(tag)).slice(0, 5)
}

/**
 * A body's schema as a description of its fields: the bazaar validates its example (none: bodies are never echoed)
 * against it, so which fields are required is said in words rather than by `required`.
 */
function describedOnly(body: Schema.JsonSchema): Schema.JsonSchema {
  const { required, ...rest } = body
  const names = Array.isArray(required) ? required : []
  return names.length === 0 ? rest : { ...rest, description: `Required: ${names.join(', ')}.` }
}
