import { type Address, parseUnits } from 'viem'
import { UnreadableAnswerError } from '../../core/Errors.js'
import type * as Safety from '../../core/Safety.js'
import { fieldsOf, vendor } from './vendor.js'

/** GoPlus token flags read as risks: each is `"1"` when set, `"0"` when not (token_security). */
export const tokenFlags = [
  'is_honeypot',
  'cannot_sell_all',
  'cannot_buy',
  'is_blacklisted',
  'is_whitelisted',
  'is_mintable',
  'is_proxy',
  'transfer_pausable',
  'slippage_modifiable',
  'personal_slippage_modifiable',
  'trading_cooldown',
  'hidden_owner',
  'can_take_back_ownership',
  'owner_change_balance',
  'selfdestruct',
  'external_call',
  'is_anti_whale',
  'anti_whale_modifiable',
] as const

/** GoPlus address flags (address_security): `"1"` when set; `number_of_malicious_contracts_created` is a count. */
export const addressFlags = [
  'cybercrime',
  'money_laundering',
  'financial_crime',
  'darkweb_transactions',
  'phishing_activities',
  'fake_kyc',
  'blacklist_doubt',
  'stealing_attack',
  'blackmail_activities',
  'sanctioned',
  'malicious_mining_activities',
  'mixer',
  'fake_token',
  'honeypot_related_address',
  'gas_abuse',
  'fake_standard_interface',
  'number_of_malicious_contracts_created',
] as const

/**
 * The keyless GoPlus Security API: `GET /api/v1/token_security/{chainId}?contract_addresses=` and `GET
 * /api/v1/address_security/{address}?chain_id=`, each answering `{ code, message, result }` with `code` 1 on success
 * and flags as `"0"`/`"1"` strings, taxes as decimal fractions (`"0.1"` is 10%). Answers are cached a minute.
 */
export function goplus(parameters: goplus.Parameters): Safety.Intel {
  const { baseUrl = 'https://api.gopluslabs.io', ...options } = parameters
  const client = vendor({
    id: 'goplus',
    name: 'GoPlus',
    baseUrl,
    timeoutMs: 8_000,
    retries: 1,
    cache: { ttlMs: 60_000, maxEntries: 1_000 },
    ...options,
  })
  const check = (body: unknown) => {
    const answer = fieldsOf(body)
    return answer.code === 1
      ? undefined
      : client.fail('failed', `GoPlus answered code ${String(answer.code)}: ${String(answer.message ?? '')}`)
  }

  return {
    source: 'GoPlus',
    async token({ chainId, token }) {
      const outcome = await client.get(`/api/v1/token_security/${chainId}`, {
        query: { contract_addresses: token.toLowerCase() },
        check,
        label: 'token_security',
      })
      if (!outcome.ok) return outcome
      const read = client.read(() => ({ flags: tokenOf(outcome.body, token) }))
      return 'ok' in read ? read : { ok: true, ...read }
    },
    async address({ chainId, address }) {
      const outcome = await client.get(`/api/v1/address_security/${address.toLowerCase()}`, {
        query: { chain_id: String(chainId) },
        check,
        label: 'address_security',
      })
      if (!outcome.ok) return outcome
      const read = client.read(() => addressOf(outcome.body))
      return 'ok' in read ? read : { ok: true, flags: read }
    },
  }
}

export declare namespace goplus {
  type Parameters = vendor.Options & {
    /** Base URL of the API. @default 'https://api.gopluslabs.io' */
    baseUrl?: string
  }
}

/** `"0.1"` (a fraction) as basis points; `null` when absent or empty (GoPlus leaves taxes empty when unknown). */
function bpsOf(value: unknown, name: string): bigint | null {
  if (value === undefined || value === null || value === '') return null
  if (typeof value !== 'string' || !/^[0-9]+(\.[0-9]+)?$/.test(value))
    throw new UnreadableAnswerError(`GoPlus ${name} is not a fraction`)
  const [whole, fraction = ''] = value.split('.')
  // Basis points keep four decimals of the fraction; further digits are cut.
  return parseUnits(`${whole}.${fraction.slice(0, 4) || '0'}`, 4)
}

function tokenOf(body: unknown, token: Address): Safety.TokenIntel | null {
  const result = fieldsOf(fieldsOf(body).result)
  const entry = result[token.toLowerCase()]
  if (entry === undefined) return null
  const fields = fieldsOf(entry)
  return {
    set: tokenFlags.filter((flag) => fields[flag] === '1'),
    unset: tokenFlags.filter((flag) => fields[flag] === '0'),
    buyTaxBps: bpsOf(fields.buy_tax, 'buy_tax'),
    sellTaxBps: bpsOf(fields.sell_tax, 'sell_tax'),
    owner: typeof fields.owner_address === 'string' && fields.owner_address !== '' ? fields.owner_address : null,
  }
}

function addressOf(body: unknown): Safety.AddressIntel {
  const fields = fieldsOf(fieldsOf(body).result)
  const isSet = (flag: string) =>
    flag === 'number_of_malicious_contracts_created' ? /^[1-9][0-9]*$/.test(String(fields[flag])) : fields[flag] === '1'
  const isUnset = (flag: string) => fields[flag] === '0'
  if (!addressFlags.some((flag) => isSet(flag) || isUnset(flag)))
    throw new UnreadableAnswerError('GoPlus answered no address flags')
  return {
    set: addressFlags.filter(isSet),
    unset: addressFlags.filter(isUnset),
    dataSource: typeof fields.data_source === 'string' && fields.data_source !== '' ? fields.data_source : null,
  }
}
