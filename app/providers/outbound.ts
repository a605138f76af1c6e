import { Type } from '@sinclair/typebox'
import { outbound as guard } from '../../adapters/outbound/fetch.js'
import { ConfigError } from '../../core/Errors.js'
import * as Outbound from '../../core/Outbound.js'
import { define } from './shared.js'

/** The hosts, addresses and networks of OUTBOUND_ALLOW, or the configuration error naming the entry at fault. */
function allowListOf(text: string | undefined): Outbound.AllowList {
  if (text === undefined) return Outbound.emptyAllowList
  const parsed = Outbound.parseAllowList(text)
  // The message names the variable and the entry at fault.
  if (!parsed.ok) throw new ConfigError(`Invalid configuration:\n  ${parsed.message}`)
  return parsed.list
}

/**
 * The guard in front of every request to a URL a caller gave (webhooks, callbacks, probes, extracted pages): private
 * and reserved addresses refused unless OUTBOUND_ALLOW lets them through.
 */
export const outbound = define({
  port: 'outbound',
  description: 'an outbound guard',
  env: Type.Object({
    OUTBOUND_ALLOW: Type.Optional(
      Type.String({
        defaultText: 'none: every private range refused',
        description:
          'comma-separated hosts, IP addresses and CIDR networks that requests to URLs a caller gave (webhooks, callbacks, probes) may reach although private (tests allow their loopback stand-ins this way)',
      }),
    ),
  }),
  assert: (env) => {
    allowListOf(env.OUTBOUND_ALLOW)
  },
  build: ({ env }) => guard({ allow: allowListOf(env.OUTBOUND_ALLOW) }),
})
