import { Elysia } from 'elysia'

// The baseline of the free-endpoint row: a bare Elysia app answering the JSON the gateway's GET /free/timestamp
// answers (the same fields, computed the same way), with nothing else in the request path.
// Usage: bun bench/reference/elysia.ts   (PORT)

const port = Number(process.env.PORT ?? 4020)

new Elysia()
  .get('/free/timestamp', () => {
    const now = new Date()
    return { seconds: Math.floor(now.getTime() / 1000), milliseconds: now.getTime(), iso: now.toISOString() }
  })
  .listen({ port, hostname: '127.0.0.1' })
process.stdout.write(`bare Elysia listening on http://127.0.0.1:${port}\n`)
