// A browser page's script that pays for one call with the client (bundle it: `bun build --target browser`). The page
// is served by the gateway's origin; the devnet key comes in the page's fragment (#0x...), never sent to a server.
import { createClient } from 'agent-pay-gateway/client'
import { privateKeyToAccount } from 'viem/accounts'

const client = createClient({
  url: location.origin,
  account: privateKeyToAccount(location.hash.slice(1)),
  maxPerCall: 10_000n, // 0.01 USDC, in atomic units
})
globalThis.paid = client.call('GET /api/v1/rpc/chains').then((answer) => {
  document.querySelector('output').textContent =
    `HTTP ${answer.status}, paid ${answer.paid} in ${answer.receipt?.transaction}`
  return { status: answer.status, paid: String(answer.paid), receipt: answer.receipt }
})
