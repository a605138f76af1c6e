// A Deno script that pays for one call with the client: GATEWAY_URL and AGENT_PAY_PRIVATE_KEY from the environment.
// `deno run --allow-env --allow-net examples/deno-pay.mjs` (with the package installed, or an npm: specifier).
import { createClient } from 'agent-pay-gateway/client'
import { privateKeyToAccount } from 'viem/accounts'

const client = createClient({
  url: Deno.env.get('GATEWAY_URL') ?? 'http://127.0.0.1:3402',
  account: privateKeyToAccount(Deno.env.get('AGENT_PAY_PRIVATE_KEY')),
  maxPerCall: 10_000n, // 0.01 USDC, in atomic units
})
const answer = await client.call('GET /api/v1/rpc/chains')
console.log(JSON.stringify({ status: answer.status, paid: String(answer.paid), receipt: answer.receipt }))
