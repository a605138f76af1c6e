import { describe, expect, test } from 'bun:test'
import { erc20Abi } from 'viem'
import { devnet } from '../../adapters/chain/devnet.js'
import { freePort, run } from '../support/processes.js'

describe('fund', () => {
  test('default: mints devnet USDC to the address on the devnet at DEVNET_RPC_URL', async () => {
    const chain = await devnet({ accountCount: 1 })
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (request) => chain.handleJsonRpc(request) })
    const recipient = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'
    const { exitCode, stdout } = await run({
      script: 'app/fund.ts',
      args: [recipient, '2.5'],
      env: { DEVNET_RPC_URL: `http://127.0.0.1:${server.port}` },
    })
    const balance = await chain.publicClient.readContract({
      address: chain.token.address,
      abi: erc20Abi,
      functionName: 'balanceOf',
      args: [recipient],
    })
    server.stop(true)
    await chain.close()
    expect(exitCode).toBe(0)
    expect(stdout).toStartWith(`Minted 2.5 devnet USDC to ${recipient} in 0x`)
    expect(balance).toBe(2_500_000n)
  })

  test('error: with no devnet running it says to start one, in one line, and exits with 1', async () => {
    const url = `http://127.0.0.1:${freePort()}`
    const { exitCode, stdout, stderr } = await run({
      script: 'app/fund.ts',
      args: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '5'],
      env: { DEVNET_RPC_URL: url },
    })
    expect(exitCode).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      `No devnet answers at ${url}: start one with \`npm start\` or \`npm run devnet\` (or set DEVNET_RPC_URL).\n`,
    )
  })

  test('behavior: without DEVNET_RPC_URL it reaches the devnet `npm start` serves at DEVNET_RPC_PORT', async () => {
    const port = String(freePort())
    const { exitCode, stderr } = await run({
      script: 'app/fund.ts',
      args: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8', '5'],
      env: { DEVNET_RPC_PORT: port },
    })
    expect(exitCode).toBe(1)
    expect(stderr).toStartWith(`No devnet answers at http://127.0.0.1:${port}: `)
  })
})
