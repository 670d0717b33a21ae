/** @module The check every statement passes before anything is stored: opening + Σ lines = closing. */
import { reject, type ErrorDetail, type Rejection } from '../errors.ts'
import { sumSafe } from '../ledger/money.ts'
import type { Statement } from './types.ts'

export interface Unbalanced {
  readonly statement: number
  readonly opening: number
  readonly sum: number
  readonly closing: number
}

/**
 * Null when every statement balances; else statement_unbalanced naming each one that does not (index
 * from 0 in file order, opening, sum of lines, closing: in `details` for the wire and in `unbalanced` as
 * numbers), or amount_out_of_range when a sum leaves ±(2^53−1).
 */
export function checkBalances(statements: readonly Statement[]): (Rejection & { readonly unbalanced?: readonly Unbalanced[] }) | null {
  const unbalanced: Unbalanced[] = []
  for (const [index, statement] of statements.entries()) {
    const sum = sumSafe(statement.entries.map((entry) => entry.amount))
    const expected = sum === null ? null : sumSafe([statement.opening.amount, sum])
    if (sum === null || expected === null) {
      return reject('amount_out_of_range', undefined, [{ path: `/statements/${index}`, message: 'the sum of the lines leaves ±(2^53−1)' }])
    }
    if (expected !== statement.closing.amount) unbalanced.push({ statement: index, opening: statement.opening.amount, sum, closing: statement.closing.amount })
  }
  if (unbalanced.length === 0) return null
  const details: ErrorDetail[] = unbalanced.map((each) => ({
    path: `/statements/${each.statement}`,
    message: `statement ${each.statement}: opening ${each.opening} + sum of lines ${each.sum} = ${each.opening + each.sum}, not the closing ${each.closing}`,
  }))
  return { ...reject('statement_unbalanced', undefined, details), unbalanced }
}
