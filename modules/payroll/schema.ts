import { type Static, Type } from '@sinclair/typebox'
import * as Batch from '../../core/Batch.js'

// Bounds here cap the work and document the fields; the batch rules (EIP-55 checksums, base-unit integers, the chain
// allowlist) are checked before the schema by the batch preflight, which names the employee and field.

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
    amount: Type.String({
      maxLength: Batch.maxAmountDigits + 2,
      description: 'RAW base-unit integer string, e.g. "2500000000" for 2,500 USDC.',
    }),
    name: Type.Optional(
      Type.String({
        maxLength: Batch.maxMemoLength,
        description: 'Off-chain label for the caller; not part of the transaction.',
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
    chain: Type.Optional(chain),
  },
  { additionalProperties: false },
)
/** Body of `POST /api/v1/payroll/estimate`. */
export type EstimateBody = Static<typeof EstimateBody>
