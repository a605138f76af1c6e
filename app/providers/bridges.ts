import { across } from '../../adapters/bridge/across.js'
import { lifi } from '../../adapters/bridge/lifi.js'
import { define } from './shared.js'

/** The cross-chain bridges (LI.FI, Across), opened at the URLs of the bridge family's environment. */
export const bridges = define({
  port: 'bridges',
  description: 'bridge adapters',
  build: () => (settings) => [lifi(settings.lifi), across(settings.across)],
})
