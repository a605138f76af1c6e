import type { Static, TObject } from '@sinclair/typebox'
import type { Port, Ports } from './Module.js'

/**
 * What a port provider is, declared as a module declares itself: the port it builds, its own slice of the
 * environment, how it builds the port from that slice and from what the composition root shares, and one line saying
 * what the port is. The composition root parses every provider's slice with the gateway's settings, then builds each
 * port once, in the list's order; a port the deployment passes itself is not built. A vendor family is one module
 * folder, one provider and one line in each list.
 */
export type Provider<port extends Port = Port, env extends TObject = TObject, shared = unknown> = {
  /** The port it builds. */
  port: port
  /**
   * What the port is, as a sentence names it when a module cannot run for want of it, with the variables that set it
   * up, e.g. `an SMTP relay (NOTIFY_SMTP_URL and NOTIFY_EMAIL_FROM)`; also the title of its configuration rows.
   */
  description: string
  /**
   * Its slice of the environment; a variable with `secret: true` in its schema is never printed. Each variable's
   * `description` (and `defaultText`) is its row of the configuration table (`npm run docs`). A variable a module reads
   * too is the same schema object in both slices, listed once.
   */
  env?: env
  /** Refuses a slice whose variables do not go together (throws a `ConfigError` naming them); run by the parse. */
  assert?: (env: Static<env>) => void
  /**
   * Builds the port; `undefined` when its slice leaves it unconfigured (the modules that need it answer 503 with the
   * description). May throw at boot on a bad slice.
   */
  build: (parameters: Build<env, shared>) => Ports[port] | undefined | Promise<Ports[port] | undefined>
}

/** What a provider's `build` receives. */
export type Build<env extends TObject = TObject, shared = unknown> = {
  /** Its own slice of the environment, parsed. */
  env: Static<env>
  /** What the composition root shares with every provider (the settlement chain, the store, the outbound guard...). */
  shared: shared
  /** The ports built before it, in the list's order, and those the deployment passed. */
  ports: Partial<Ports>
}

/** Any provider, whatever its port, environment and shared resources. */
// biome-ignore lint/suspicious/noExplicitAny: a list of providers holds declarations of every shape.
export type AnyProvider = Provider<any, any, any>
