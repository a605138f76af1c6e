import { simulator as code } from '../../adapters/chain/safety.js'
import { define } from './shared.js'

/** The runtime code of SafetySimulator, which buys and sells a token in one `eth_call` (the token safety screen). */
export const simulator = define({
  port: 'simulator',
  description: 'a token-trade simulator',
  build: () => code,
})
