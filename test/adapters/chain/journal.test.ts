import { afterEach, describe, expect, test } from 'bun:test'
import { appendFileSync, existsSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, createWalletClient, erc20Abi, type Hash, parseEther, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { devnet } from '../../../adapters/chain/devnet.js'
import { open } from '../../../adapters/chain/journal.js'

const opened: devnet.Devnet[] = []

afterEach(async () => {
  for (const chain of opened.splice(0)) await chain.close()
})

function journalPath(): string {
  return join(mkdtempSync(join(tmpdir(), 'journal-')), 'devnet.journal')
}

async function start(journal: string, parameters: devnet.Parameters = {}): Promise<devnet.Devnet> {
  const chain = await devnet({ journal, ...parameters })
  opened.push(chain)
  return chain
}

async function stop(chain: devnet.Devnet): Promise<void> {
  opened.splice(opened.indexOf(chain), 1)
  await chain.close()
}

/** What a restart must keep: every block hash, balances of ETH and USDC, the nonce of a sender. */
async function stateOf(chain: devnet.Devnet, addresses: readonly Address[]) {
  const latest = await chain.publicClient.getBlockNumber({ cacheTime: 0 })
  const hashes: Hash[] = []
  for (let number = 0n; number <= latest; number++)
    hashes.push((await chain.publicClient.getBlock({ blockNumber: number })).hash)
  const balances = await Promise.all(
    addresses.map(async (address) => ({
      eth: await chain.publicClient.getBalance({ address }),
      usdc: await chain.publicClient.readContract({
        address: chain.token.address,
        abi: erc20Abi,
        functionName: 'balanceOf',
        args: [address],
      }),
      nonce: await chain.publicClient.getTransactionCount({ address }),
    })),
  )
  return { hashes, balances }
}

/** Moves ETH and USDC between test accounts and mines an empty block: a bit of everything a journal records. */
async function activity(chain: devnet.Devnet, rounds: number): Promise<void> {
  const sender = privateKeyToAccount(chain.accounts[4]!.privateKey)
  const wallet = createWalletClient({ account: sender, chain: chain.chain, transport: chain.transport })
  for (let round = 0; round < rounds; round++) {
    await wallet.sendTransaction({ to: chain.accounts[5]!.address, value: parseEther('0.5') })
    await wallet.writeContract({
      address: chain.token.address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [chain.accounts[6]!.address, 1_000n],
    })
    await chain.fund({ address: chain.accounts[7]!.address, amount: 250n })
  }
  await chain.request('evm_mine', [])
}

describe('devnet with a journal', () => {
  test('default: a restart replays the journal into the same chain (blocks, hashes, balances, nonces)', async () => {
    const path = journalPath()
    const first = await start(path)
    await activity(first, 3)
    const addresses = first.accounts.slice(4, 8).map((account) => account.address)
    const before = await stateOf(first, addresses)
    await stop(first)

    const second = await start(path)
    expect(await stateOf(second, addresses)).toEqual(before)

    // The replayed chain goes on recording: a second restart keeps what came after the first.
    await activity(second, 1)
    const after = await stateOf(second, addresses)
    await stop(second)
    const third = await start(path)
    expect(await stateOf(third, addresses)).toEqual(after)
  })

  test('behavior: a torn last line (a write cut by kill -9) is dropped and cut from the file', async () => {
    const path = journalPath()
    const first = await start(path)
    const addresses = [first.accounts[7]!.address]
    const before = await stateOf(first, addresses)
    await first.fund({ address: addresses[0]!, amount: 1n })
    await stop(first)
    const complete = readFileSync(path)
    const lastLineStart = complete.subarray(0, -1).lastIndexOf(0x0a) + 1
    truncateSync(path, lastLineStart + Math.floor((complete.length - lastLineStart) / 2))

    const second = await start(path)
    expect(await stateOf(second, addresses)).toEqual(before)
    expect(readFileSync(path)).toEqual(complete.subarray(0, lastLineStart))
    await second.fund({ address: addresses[0]!, amount: 2n })
    const after = await stateOf(second, addresses)
    await stop(second)

    const third = await start(path)
    expect(await stateOf(third, addresses)).toEqual(after)
  })

  test('behavior: hardhat_mine, evm_snapshot, evm_revert and evm_increaseTime replay too', async () => {
    const path = journalPath()
    const first = await start(path)
    const address = first.accounts[8]!.address
    await first.request('hardhat_mine', ['0x64', '0x2'])
    const snapshot = await first.request('evm_snapshot', [])
    await first.fund({ address, amount: 5n })
    await first.request('evm_revert', [snapshot])
    await first.request('evm_increaseTime', ['0x100'])
    await first.fund({ address, amount: 7n })
    const before = await stateOf(first, [address])
    await stop(first)

    const second = await start(path)
    expect(await stateOf(second, [address])).toEqual(before)
  })

  test('behavior: a thousand transactions replay', async () => {
    const path = journalPath()
    const first = await start(path)
    const sender = privateKeyToAccount(first.accounts[8]!.privateKey)
    const nonce = await first.publicClient.getTransactionCount({ address: sender.address })
    // Signed here rather than through a wallet client, which would ask the chain five times per transaction.
    for (let index = 0; index < 1_000; index++) {
      const transaction = await sender.signTransaction({
        chainId: first.chainId,
        type: 'eip1559',
        to: first.accounts[9]!.address,
        value: 1n,
        gas: 21_000n,
        nonce: nonce + index,
        maxFeePerGas: parseGwei('100'),
        maxPriorityFeePerGas: parseGwei('1'),
      })
      await first.request('eth_sendRawTransaction', [transaction])
    }
    const before = await first.publicClient.getBlock()
    await stop(first)

    const second = await start(path)
    expect(await second.publicClient.getBlock()).toEqual(before)
    expect(before.number).toBeGreaterThan(1_000n)
  })

  test('behavior: the genesis block carries the start time, so chains started apart differ from block 0', async () => {
    const first = await devnet({ genesisTime: 1_700_000_000 })
    const second = await devnet({ genesisTime: 1_700_000_001 })
    opened.push(first, second)
    const [one, two] = await Promise.all(
      [first, second].map((chain) => chain.publicClient.getBlock({ blockNumber: 0n })),
    )
    expect(one!.hash).not.toBe(two!.hash)
  })

  test('error: a second devnet on a journal in use is refused, and takes it once the first is closed', async () => {
    const path = journalPath()
    const first = await start(path)
    await expect(start(path)).rejects.toThrow(`The devnet journal ${path} is in use by process ${process.pid}`)
    await expect(start(path)).rejects.toMatchObject({ name: 'StartError', code: 'devnet_in_use' })
    await stop(first)
    expect(existsSync(`${path}.lock`)).toBe(false)
    await stop(await start(path))
  })

  test('behavior: a lock left by a process that no longer runs is taken over', async () => {
    const path = journalPath()
    const gone = Bun.spawn([process.execPath, '-e', '0'])
    await gone.exited
    writeFileSync(`${path}.lock`, String(gone.pid))
    const chain = await start(path)
    expect(readFileSync(`${path}.lock`, 'utf8')).toBe(String(process.pid))
    await stop(chain)
  })

  test.if(process.platform === 'linux')(
    'behavior: a lock left by a process killed with -9 and not reaped yet (a zombie) is taken over',
    async () => {
      const path = journalPath()
      // The shell is replaced by `sleep 5` while `sleep 1` still runs, so nobody reaps `sleep 1` when it exits: a zombie
      // until the parent ends. (With `sleep 0` the shell could reap it before its `exec`, and there was no zombie.)
      const parent = Bun.spawn(['sh', '-c', 'sleep 1 & echo $!; exec sleep 5'], { stdout: 'pipe' })
      try {
        const reader = parent.stdout.getReader()
        const zombie = Number(new TextDecoder().decode((await reader.read()).value).trim())
        reader.releaseLock()
        const stateOf = () => readFileSync(`/proc/${zombie}/stat`, 'utf8').split(') ')[1]!.charAt(0)
        while (stateOf() !== 'Z') await Bun.sleep(5)
        writeFileSync(`${path}.lock`, String(zombie))
        const chain = await start(path)
        expect(readFileSync(`${path}.lock`, 'utf8')).toBe(String(process.pid))
        await stop(chain)
      } finally {
        parent.kill()
      }
    },
  )

  test('error: a journal of another chain id is refused', async () => {
    const path = journalPath()
    await stop(await start(path))
    await expect(start(path, { chainId: 31_337 })).rejects.toThrow('holds a chain with chainId 84532, not 31337')
    expect(existsSync(`${path}.lock`)).toBe(false)
  })

  test('error: a damaged line before the last refuses to replay', async () => {
    const path = journalPath()
    const chain = await start(path)
    await chain.fund({ address: chain.accounts[7]!.address, amount: 1n })
    await stop(chain)
    const lines = readFileSync(path, 'utf8').split('\n')
    lines[3] = '{"m":'
    writeFileSync(path, lines.join('\n'))
    await expect(start(path)).rejects.toThrow(`The devnet journal ${path} has a damaged line 4.`)
  })

  test('error: methods that would mine beside the journal are refused', async () => {
    const chain = await start(journalPath())
    await expect(chain.request('evm_setIntervalMining', [1_000])).rejects.toThrow(
      'evm_setIntervalMining is not available on a devnet that keeps its chain in a journal.',
    )
  })
})

describe('open', () => {
  test('behavior: a journal cut inside its header is a new journal', () => {
    const path = journalPath()
    appendFileSync(path, '{"journal":1,"chainId":845')
    const journal = open({ path })
    expect(journal.header).toBeUndefined()
    expect(readFileSync(path, 'utf8')).toBe('')
    journal.close()
  })

  test('error: a file that is not a journal is refused', () => {
    const path = journalPath()
    writeFileSync(path, '{"hello":"world"}\n')
    expect(() => open({ path })).toThrow('is not a devnet journal')
    expect(() => open({ path })).toThrow(expect.objectContaining({ code: 'devnet_journal_invalid' }))
    expect(existsSync(`${path}.lock`)).toBe(false)
  })
})
