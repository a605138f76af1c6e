import { type Static, Type } from '@sinclair/typebox'
import * as Address from '../../core/Address.js'

/** Transactions `GET /api/v1/analytics/txhistory` returns when the query names no limit. */
export const defaultLimit = 25

/** Most transactions one call returns, and the history the wallet classification reads. */
export const maxLimit = 100

/** Query of `GET /api/v1/analytics/txhistory`. */
export const HistoryQuery = Type.Object({
  address: Address.evmSchema('Address'),
  limit: Type.Optional(
    Type.String({
      maxLength: 3,
      // 1 through 100, checked by the route schema so that a bad limit is a 400 before any payment.
      pattern: '^(100|[1-9][0-9]?)$',
      description: `Newest transactions returned, 1 to ${maxLimit}. @default ${defaultLimit}`,
    }),
  ),
})
/** Query of `GET /api/v1/analytics/txhistory`. */
export type HistoryQuery = Static<typeof HistoryQuery>

/** Query of `GET /api/v1/analytics/wallet`. */
export const WalletQuery = Type.Object({ address: Address.evmSchema('Wallet') })
/** Query of `GET /api/v1/analytics/wallet`. */
export type WalletQuery = Static<typeof WalletQuery>
