import { AsyncLocalStorage } from 'node:async_hooks'
import * as ClientAddress from '../core/ClientAddress.js'

/**
 * The client each request counts against (its source address as `ClientAddress.key` says, or for a request made in
 * process that of the request it is made within), and whether the request being handled is still unpaid. The client
 * of a request the server received is found when first asked for, not as it enters: reading the source address costs
 * every request otherwise, and most are never asked (a free entry without a limit, a paid call that passes its checks).
 */
export function scope(): scope.ReturnType {
  // Each request's client once found (`undefined` too: a request made in process outside any other).
  const clients = new WeakMap<Request, string | undefined>()
  const current = new AsyncLocalStorage<Request>()
  // Requests not yet past the payment hook: what they do is done unpaid.
  const unpaid = new WeakSet<Request>()
  // Where the server's requests come from (`readAddresses`); none until a server binds the scope.
  let addressOf: (request: Request) => string | undefined = () => undefined
  function clientOf(request: Request | undefined): string | undefined {
    if (request === undefined) return undefined
    if (clients.has(request)) return clients.get(request)
    const address = addressOf(request)
    const client = address === undefined ? undefined : ClientAddress.key(address)
    clients.set(request, client)
    return client
  }
  return {
    clientOf,
    readAddresses(of) {
      addressOf = of
    },
    enter(request, inProcess) {
      // Made in process: the client of the request it is made within, now, while that one is being handled.
      if (inProcess) clients.set(request, clientOf(current.getStore()))
      current.enterWith(request)
      unpaid.add(request)
    },
    paying(request) {
      unpaid.delete(request)
    },
    unpaidClient() {
      const request = current.getStore()
      return request && unpaid.has(request) ? clientOf(request) : undefined
    },
  }
}

export declare namespace scope {
  type ReturnType = {
    /** The client `request` counts against. */
    clientOf: (request: Request | undefined) => string | undefined
    /** How the server's requests are told their source address, read when a request's client is first asked for. */
    readAddresses: (addressOf: (request: Request) => string | undefined) => void
    /** Records a request entering, the server's or one made in process (`inProcess`); it is unpaid until `paying`. */
    enter: (request: Request, inProcess: boolean) => void
    /** Marks a request past the payment hook. */
    paying: (request: Request) => void
    /** The client of the request being handled while it is unpaid. */
    unpaidClient: () => string | undefined
  }
}
