/**
 * The trust score of an address: five axes, each scored 0 to 100 from facts read for it, then weighed into one
 * number. Pure: the facts come in, the score and the reasoning go out, so every figure can be recomputed by hand.
 *
 * - `activity` (weight 25): the address's age on the settlement chain (days since its oldest transaction, full at
 *   365) and its transaction count (full at 100), half each: `50 × min(age, 365) / 365 + 50 × min(count, 100) / 100`.
 * - `attestations` (weight 25): Coinbase Verifications: a verified account scores 70, a verified country 30 more.
 * - `reputation` (weight 20): ERC-8004 feedback to the agents the address owns: the average feedback value (read on
 *   the common 0–100 scale, clamped to it) shrunk toward 0 by how little there is: `average × n / (n + 5)` for n
 *   standing feedback entries. No agent, or no feedback, scores 0.
 * - `ledger` (weight 30): payments the address settled through this gateway: `100 × min(n, 50) / 50`.
 * - `sanctions` (weight 0, a gate): an address on the sanctions list scores 0 overall, whatever the other axes say.
 *
 * The score is the weighted mean of the axes that were checked; an axis whose source could not be read is
 * `not_checked`, left out of the mean (never counted as 0 or 100) and lowers `coverage`, the checked share of the
 * weights. The verdict: `blocked` when sanctioned; `unscreened` when the sanctions list could not be read; else
 * `high` (70 and above), `medium` (40 and above) or `low`.
 */

/** The axes, in the order answers list them. */
export const axes = ['activity', 'sanctions', 'attestations', 'reputation', 'ledger'] as const

/** One axis's name. */
export type AxisId = (typeof axes)[number]

/** Each axis's weight in the mean, out of 100. */
export const weights: Readonly<Record<AxisId, number>> = {
  activity: 25,
  sanctions: 0,
  attestations: 25,
  reputation: 20,
  ledger: 30,
}

/** Age, in days, at which the activity axis's age half is full. */
export const fullAgeDays = 365
/** Transactions at which the activity axis's count half is full. */
export const fullTransactions = 100
/** Feedback entries that weigh as much as the prior of 0 in the reputation axis. */
export const reputationPrior = 5
/** Settled payments at which the ledger axis is full. */
export const fullPayments = 50

/** One axis of an answer: its score, the facts it follows from and where they were read. */
export type Axis = {
  /** Which axis. */
  id: AxisId
  /** `scored`, or `not_checked` when its source could not be read (left out of the score). */
  status: 'scored' | 'not_checked'
  /** 0 to 100; null when not checked. */
  score: number | null
  /** Its weight in the mean. */
  weight: number
  /** The facts the score follows from; amounts as decimal strings. */
  inputs: Record<string, unknown>
  /** Where the facts were read. */
  source: string
  /** One sentence on what was found, or why the axis could not be checked. */
  summary: string
}

/** The overall verdict. */
export type Verdict = 'blocked' | 'unscreened' | 'high' | 'medium' | 'low'

/** The activity axis's score from the address's age and transaction count. */
export function activityScore(parameters: { ageDays: number; transactions: number }): number {
  const age = Math.min(Math.max(parameters.ageDays, 0), fullAgeDays) / fullAgeDays
  const count = Math.min(Math.max(parameters.transactions, 0), fullTransactions) / fullTransactions
  return round(50 * age + 50 * count)
}

/** The attestations axis's score from the two Coinbase Verifications checks. */
export function attestationScore(parameters: { verifiedAccount: boolean; verifiedCountry: boolean }): number {
  return (parameters.verifiedAccount ? 70 : 0) + (parameters.verifiedCountry ? 30 : 0)
}

/** The reputation axis's score from the count and average value of the standing feedback. */
export function reputationScore(parameters: { count: number; average: number }): number {
  if (parameters.count <= 0) return 0
  const average = Math.min(Math.max(parameters.average, 0), 100)
  return round((average * parameters.count) / (parameters.count + reputationPrior))
}

/** The ledger axis's score from the number of payments settled through this gateway. */
export function ledgerScore(parameters: { count: number }): number {
  return round((100 * Math.min(Math.max(parameters.count, 0), fullPayments)) / fullPayments)
}

/** The overall score, coverage and verdict of scored axes (sanctions flagged or not by `sanctioned`). */
export function combine(parameters: { axes: readonly Axis[]; sanctioned: boolean | null }): combine.ReturnType {
  const scored = parameters.axes.filter((axis) => axis.status === 'scored' && axis.weight > 0)
  const total = parameters.axes.reduce((sum, axis) => sum + axis.weight, 0)
  const checked = scored.reduce((sum, axis) => sum + axis.weight, 0)
  const mean = checked === 0 ? 0 : scored.reduce((sum, axis) => sum + axis.weight * (axis.score ?? 0), 0) / checked
  const score = parameters.sanctioned === true ? 0 : round(mean)
  const coverage = total === 0 ? 0 : Math.round((100 * checked) / total) / 100
  const verdict: Verdict =
    parameters.sanctioned === true
      ? 'blocked'
      : parameters.sanctioned === null
        ? 'unscreened'
        : score >= 70
          ? 'high'
          : score >= 40
            ? 'medium'
            : 'low'
  return { score, coverage, verdict }
}

export declare namespace combine {
  type ReturnType = {
    /** 0 to 100, one decimal. */
    score: number
    /** Share of the weights whose axis was checked, 0 to 1, two decimals. */
    coverage: number
    /** The verdict. */
    verdict: Verdict
  }
}

/** Rounds to one decimal. */
function round(value: number): number {
  return Math.round(value * 10) / 10
}
