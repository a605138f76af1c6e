import { openalex } from '../adapters/research/openalex.js'
import { researchServer } from '../test/support/research.js'

// The research row of `bun run bench`: one research source (OpenAlex's adapter on the vendor kit: rate limit, TTL
// cache, normalization) against the local stand-in, asked the same DOI again and again (served from the cache) and
// asked a new DOI each time (each an upstream request, held to OpenAlex's 10 requests/s by the kit), in the same
// round. Runs alone too: `bun bench/research.ts`.

/** One round: requests/s of each kind, and the share of repeated calls the cache answered. */
export type Round = {
  /** The same DOI, `calls` times in a row, requests/s. */
  repeated: number
  /** A new DOI each call, requests/s. */
  firstHit: number
  /** Repeated calls answered without an upstream request, percent. */
  hitRate: number
}

/** Measures one {@link Round}: `calls` repeated queries and `firstHits` new ones, one at a time. */
export async function round(parameters: { calls: number; firstHits: number; round: number }): Promise<Round> {
  const { calls, firstHits } = parameters
  const vendors = researchServer()
  try {
    const source = openalex({ baseUrl: vendors.env.OPENALEX_URL!, userAgent: 'bench' })
    const first = await source.byDoi('10.7717/peerj.4375')
    if (!first.ok || !first.found) throw new Error('the stand-in did not answer the bench DOI')
    const before = vendors.to('openalex').length
    let started = performance.now()
    for (let call = 0; call < calls; call++) {
      const outcome = await source.byDoi('10.7717/peerj.4375')
      if (!outcome.ok) throw new Error(outcome.message)
    }
    const repeated = calls / ((performance.now() - started) / 1_000)
    const hitRate = (1 - (vendors.to('openalex').length - before) / calls) * 100
    started = performance.now()
    for (let call = 0; call < firstHits; call++) {
      const outcome = await source.byDoi(`10.5555/bench.${parameters.round * firstHits + call}`)
      if (!outcome.ok || !outcome.found) throw new Error('a first hit failed')
    }
    const firstHit = firstHits / ((performance.now() - started) / 1_000)
    return { repeated, firstHit, hitRate }
  } finally {
    vendors.stop()
  }
}

/** The bench's rows: repeated-query requests/s against first hits, and the cache hit rate. */
export async function rows(parameters: { rounds: number }) {
  const results: Round[] = []
  for (let index = 0; index < parameters.rounds; index++)
    results.push(await round({ calls: 5_000, firstHits: 30, round: index }))
  return [
    {
      figure: 'research: repeated query (papers/by-doi, TTL cache) requests/s',
      baseline: 'first hits (a new DOI each call, an upstream request under the 10/s limit)',
      unit: 'req/s',
      figures: results.map((result) => result.repeated),
      baselines: results.map((result) => result.firstHit),
      target: { relation: '>=' as const, ratio: 10 },
    },
    {
      figure: 'research: cache hit rate of the repeated query',
      baseline: 'every call answered from the cache',
      unit: '%',
      figures: results.map((result) => result.hitRate),
      baselines: results.map(() => 100),
      target: { relation: '>=' as const, ratio: 0.99 },
    },
  ]
}

if (import.meta.main) console.log(JSON.stringify(await rows({ rounds: 3 }), null, 2))
