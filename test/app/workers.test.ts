import { expect, test } from 'bun:test'
import { memory } from '../../adapters/queue/memory.js'
import type { createGateway } from '../../app/gateway.js'
import { silent } from '../../app/log.js'
import { workerRunner } from '../../app/workers.js'

test("behavior: work that an item makes for another worker runs at once, not at that worker's next poll", async () => {
  const queue = memory()
  const ran: string[] = []
  const worker = (name: string, then?: string): createGateway.Worker => ({
    queue: name,
    concurrency: 4,
    leaseMs: 30_000,
    run: async (item) => {
      ran.push(`${name}:${item.id}`)
      if (then) await queue.enqueue([{ queue: then, id: item.id, payload: {} }])
      return { done: true }
    },
  })
  await queue.enqueue([{ queue: 'events', id: 'evt_1', payload: {} }])
  // A poll a minute apart: the delivery below runs long before the test's own timeout only if the event's end wakes it.
  const runner = workerRunner({
    queue,
    workers: [worker('events', 'deliveries'), worker('deliveries')],
    logger: silent(),
    pollMs: 60_000,
  })
  runner.start()
  while (ran.length < 2) await Bun.sleep(5)
  await runner.stop()
  expect(ran).toEqual(['events:evt_1', 'deliveries:evt_1'])
}, 5_000)
