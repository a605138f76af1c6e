import { AsyncLocalStorage } from 'node:async_hooks'
import * as ClientAddress from '../core/ClientAddress.js'

/**
 * The client each request counts against (its source address as `ClientAddress.key` says, or for a request made in
 * process that of the request it is made for), and whether the request being handled is still unpaid.
 */
export function scope(): scope.ReturnType {
  const clients = new WeakMap<Request, string>()
  const current = new AsyncLocalStorage<Request>()
  // Requests not yet past the payment hook: what they do is done unpaid.
  const unpaid = new WeakSet<Request>()
  const clientOf = (request: Request | undefined) => request && clients.get(request)
  return {
    clientOf,
    enter(request, address) {
      const client = address === undefined ? clientOf(current.getStore()) : ClientAddress.key(address)
      if (client !== undefined) clients.set(request, client)
      current.enterWith(request)
      unpaid.add(request)
    },
    paying(request) {
      unpaid.delete(request)
    },
    unpaidClient() {
      const request = current.getStore()
      return request && unpaid.has(request) ? clients.get(request) : undefined
    },
  }
}

export declare namespace scope {
  type ReturnType = {
    /** The client `request` counts against. */
    clientOf: (request: Request | undefined) => string | undefined
    /** Records a request entering, from `address` (`undefined` in process); it is unpaid until `paying`. */
    enter: (request: Request, address: string | undefined) => void
    /** Marks a request past the payment hook. */
    paying: (request: Request) => void
    /** The client of the request being handled while it is unpaid. */
    unpaidClient: () => string | undefined
  }
}
