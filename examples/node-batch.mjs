// A Node agent that prepares a batch payment with core alone, no server: the fee the contract takes, the totals and
// the calldata of sprayToken, and the gas it needs. `node examples/node-batch.mjs` once the package is installed.
import { BatchPayment, Gas, Units } from 'agent-pay-gateway/core/batch'

const usdc = { address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', isETH: false }
const amount = (value) => Units.fromDecimal({ value, decimals: 6, field: 'amount' })
const recipients = [
  { address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: amount('1.5') },
  { address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC', amount: amount('2') },
]
const { total, fee, totalWithFee } = BatchPayment.totals({ recipients })
const calldata = BatchPayment.calldata({ token: usdc, recipients })
const { gas } = Gas.estimate({ recipientCount: recipients.length, isETH: false })
console.log(
  JSON.stringify({
    total: Units.toDecimal(total, 6),
    fee: Units.toDecimal(fee, 6),
    totalWithFee: Units.toDecimal(totalWithFee, 6),
    selector: calldata.slice(0, 10),
    calldata,
    gas: String(gas),
  }),
)
