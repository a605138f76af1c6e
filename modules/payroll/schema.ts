import { type Static, Type } from '@sinclair/typebox'
import * as Batch from '../../core/Batch.js'
import * as Units from '../../core/Units.js'

// Bounds here cap the work and document the fields; the batch rules (EIP-55 checksums, amounts in the token's
// decimals, the chain allowlist) are checked before the schema by the batch preflight, which names the employee and field.

const chain = Type.Union(
  Batch.chains.map((name) => Type.Literal(name)),
  { description: `Chain of the batch contract: ${Batch.chains.join(' or ')}; default base.` },
)

const token = Type.String({
  minLength: 1,
  maxLength: 64,
  description:
    'Token symbol (base: USDC, USDT, EURC, DAI, WETH, or ETH; peaq: USDC) or an ERC-20 address on the chain.',
})

/** One employee paid by a payroll run. */
export const Employee = Type.Object(
  {
    address: Type.String({ maxLength: 64, description: 'EVM address paid.' }),
    amount: Units.decimalSchema({
      description:
        'HUMAN decimal amount of the token, as the original gateway reads it: "2500" (or 2500) is 2,500 USDC; at most the token\'s decimals.',
    }),
    label: Type.Optional(
      Type.String({
        maxLength: Batch.maxMemoLength,
        description: 'Off-chain label, e.g. "March salary"; echoed in breakdown, not part of the transaction.',
      }),
    ),
  },
  { additionalProperties: false },
)

/** Body of `POST /api/v1/payroll/execute`. */
export const ExecuteBody = Type.Object(
  {
    token,
    sender: Type.String({ maxLength: 64, description: 'The employer address that will approve, sign and send.' }),
    employees: Type.Array(Employee, {
      minItems: 1,
      maxItems: Batch.maxRecipients,
      description: `1 to ${Batch.maxRecipients} employees.`,
    }),
    memo: Type.Optional(
      Type.String({
        maxLength: Batch.maxMemoLength,
        description:
          'Payroll reference, e.g. "March 2026 payroll"; echoed in payroll.memo, not part of the transaction.',
      }),
    ),
    chain: Type.Optional(chain),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/payroll/execute`. */
export type ExecuteBody = Static<typeof ExecuteBody>

/** Body of `POST /api/v1/payroll/estimate`. */
export const EstimateBody = Type.Object(
  {
    employeeCount: Type.Integer({
      minimum: 1,
      maximum: Batch.maxRecipients,
      description: `Employees paid, 1 to ${Batch.maxRecipients}.`,
    }),
    token: Type.Optional(token),
    totalAmount: Type.Optional(
      Units.decimalSchema({
        description:
          'HUMAN decimal total of the run in the token, e.g. "25000" is 25,000 USDC; adds feeBreakdown (the protocol fee on it).',
      }),
    ),
    chain: Type.Optional(chain),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/payroll/estimate`. */
export type EstimateBody = Static<typeof EstimateBody>
