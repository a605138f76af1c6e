import * as Module from '../../core/Module.js'
import { routes } from './routes.js'
import * as Service from './service.js'

/**
 * Cron (`/api/v1/cron/*`): jobs on a 5-field UTC schedule (at most hourly) whose every run POSTs a signed
 * `cron.triggered` webhook to the job's callback (the webhooks family's deliveries, retries and signing), carrying for
 * batch and payroll actions the unsigned batch transaction built afresh. Due runs are queue items in the store: any
 * process claims each once, and a run is counted in the transaction that enqueues its delivery and the next run. A job
 * created without a callback (as the original gateway's clients create them) makes each run its owner's
 * `cron.triggered` event instead, delivered to the owner's webhooks that subscribe to it.
 */
export const manifest = Module.define({
  name: 'cron',
  paths: ['/api/v1/cron/'],
  needs: ['store', 'queue', 'outbound'],
  uses: ['batch', 'events'],
  routes: ({ ports }) =>
    routes({ store: ports.store, outbound: ports.outbound, batch: ports.batch, events: ports.events }),
  workers: [
    {
      queue: Service.runQueue,
      run: (item, { ports }) =>
        Service.fire(
          { store: ports.store, outbound: ports.outbound, batch: ports.batch, events: ports.events },
          item as never,
        ),
    },
  ],
})
