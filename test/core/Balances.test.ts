import { describe, expect, test } from 'bun:test'
import type { Address } from 'viem'
import * as Balances from '../../core/Balances.js'

const token = { symbol: 'USDC', address: '0x0000000000000000000000000000000000000001' as Address, decimals: 6 }
const account = '0x0000000000000000000000000000000000000002' as Address

describe('check', () => {
  test('default: the balance read, human and raw, with the symbol', async () => {
    const asked: unknown[] = []
    const read = async (parameters: { token: Address | undefined; accounts: readonly Address[] }) => {
      asked.push(parameters)
      return [12_500_001n]
    }
    expect(await Balances.check({ read, token, account })).toEqual({
      balance: '12.500001',
      balanceRaw: '12500001',
      token: 'USDC',
    })
    expect(asked).toEqual([{ token: token.address, accounts: [account] }])
  })

  test('behavior: no reader, or a chain that does not answer, is no check (null), not a failure', async () => {
    expect(await Balances.check({ read: undefined, token, account })).toBeNull()
    const down = async () => {
      throw new Error('node down')
    }
    expect(await Balances.check({ read: down, token, account })).toBeNull()
  })
})
