import { hostname } from 'node:os'
import type { Lease, Ledger } from '../../core/Ledger.js'
import type { Logger } from '../log.js'

/**
 * This process's lease in the ledger: every claim it makes carries the lease id, and a claim whose lease is dead
 * (no heartbeat for `ttlMs`, or a process id on this host that no longer runs) is released at once by whoever
 * meets it. Starting drops the dead leases of this host first, so a restart after `kill -9` frees its claims.
 * The lease's slot, unique among live leases, picks this process's relayer key: a process signs only under a lease it
 * knows to be its own (`current`), so that a process paused past the ttl, whose slot another process took meanwhile,
 * never signs with that slot's key again.
 */
export async function processLease(parameters: processLease.Parameters): Promise<processLease.ReturnType> {
  const {
    ledger,
    logger,
    ttlMs = 15_000,
    heartbeatMs = 5_000,
    host = hostname(),
    pid = process.pid,
    now = () => new Date(),
    isRunning = running,
  } = parameters

  const isDead = (lease: Lease, at: Date) =>
    lease.heartbeatAt.getTime() < at.getTime() - ttlMs ||
    (lease.host === host && lease.pid !== pid && !isRunning(lease.pid))

  for (const lease of await ledger.leases()) if (isDead(lease, now())) await ledger.drop(lease.id)
  // When this process last wrote its lease's heartbeat, in ms since the epoch of `now`.
  let heartbeat = 0
  const acquire = async () => {
    const at = now()
    const lease = await ledger.acquire({
      id: crypto.randomUUID(),
      host,
      pid,
      heartbeatAt: at,
      staleBefore: new Date(at.getTime() - ttlMs),
    })
    heartbeat = at.getTime()
    return lease
  }
  let own = await acquire()

  // A snapshot of the others, read again when older than a second: liveness is asked on the paid path.
  let snapshot: { at: number; leases: Map<string, Lease> } | undefined
  const others = async () => {
    const at = now().getTime()
    if (!snapshot || at - snapshot.at > 1_000)
      snapshot = { at, leases: new Map((await ledger.leases()).map((lease) => [lease.id, lease])) }
    return snapshot.leases
  }

  // One renewal at a time, shared by the heartbeat and by whoever asks for the lease meanwhile.
  let renewing: Promise<Lease> | undefined
  async function renewOrReplace(): Promise<Lease> {
    const at = now()
    if (await ledger.renew({ id: own.id, now: at })) {
      heartbeat = at.getTime()
      own = { ...own, heartbeatAt: at }
      return own
    }
    // Taken for dead (a pause longer than the ttl): whatever it held was released; go on under a new lease.
    logger.log('warn', 'lease_lost', { lease: own.id, slot: own.slot })
    own = await acquire()
    return own
  }
  function renew(): Promise<Lease> {
    renewing ??= renewOrReplace().finally(() => {
      renewing = undefined
    })
    return renewing
  }

  const timer = setInterval(() => {
    renew().catch((error: unknown) =>
      logger.log('error', 'lease_renew_failed', { error: error instanceof Error ? error.name : 'unknown' }),
    )
  }, heartbeatMs)
  timer.unref?.()

  return {
    get id() {
      return own.id
    },
    get slot() {
      return own.slot
    },
    current() {
      // Another process removes a lease only once its heartbeat is `ttlMs` old: one younger than `ttlMs - heartbeatMs`
      // is still ours, with a heartbeat's time to spare for clocks that differ between hosts and for the send.
      if (now().getTime() < heartbeat + ttlMs - heartbeatMs) return Promise.resolve(own)
      return renew()
    },
    async isLive(id) {
      if (id === own.id) return true
      const lease = (await others()).get(id)
      return lease !== undefined && !isDead(lease, now())
    },
    async stop() {
      clearInterval(timer)
      await ledger.drop(own.id)
    },
  }
}

export declare namespace processLease {
  type Parameters = {
    /** Where leases are kept, beside the claims. */
    ledger: Ledger
    /** Where events go. */
    logger: Logger
    /** A lease without a heartbeat for this long is dead, in ms. @default 15_000 */
    ttlMs?: number
    /** Time between heartbeats, in ms. @default 5_000 */
    heartbeatMs?: number
    /** Host name recorded with the lease. @default os.hostname() */
    host?: string
    /** OS process id recorded with the lease. @default process.pid */
    pid?: number
    /** Current time. @default () => new Date() */
    now?: () => Date
    /** Whether a process id runs on this host. @default a signal-0 probe */
    isRunning?: (pid: number) => boolean
  }
  type ReturnType = {
    /** Id of this process's lease, carried by its claims. */
    readonly id: string
    /** Slot of the lease held now, unique among live leases, from 0; another once a lost lease is replaced. */
    readonly slot: number
    /**
     * The lease this process holds now, to sign under: renewed first when its heartbeat is older than `ttlMs -
     * heartbeatMs`, replaced by a new one (in the lowest free slot) when another process took it for dead. Rejects
     * when the ledger does not answer.
     */
    current: () => Promise<Lease>
    /** Whether the lease with this id belongs to a live process. */
    isLive: (id: string) => Promise<boolean>
    /** Stops the heartbeat and removes the lease (a clean shutdown). */
    stop: () => Promise<void>
  }
}

/** Whether a process with this id runs here: signal 0 checks without signalling; EPERM means it runs as another user. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM'
  }
}
