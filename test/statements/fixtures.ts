/** Reading a fixture file from test/fixtures/statements/ for the statement tests. */
import fs from 'node:fs'
import path from 'node:path'
import type { Statement } from '../../src/statements/types.ts'
import type { ReadResult } from '../../src/statements/types.ts'

export function fixture(format: 'camt053' | 'mt940' | 'bai2', name: string): Buffer {
  return fs.readFileSync(path.resolve(import.meta.dirname, '../fixtures/statements', format, name))
}

/** The statements of a result that must have read, or a thrown error naming why not (fails the test). */
export function statementsOf(result: ReadResult): readonly Statement[] {
  if (!result.ok) throw new Error(`expected statements, got ${result.code}: ${result.message}`)
  return result.statements
}

/** The figures a window takes from a statement, to compare with the ones written down by hand. */
export function figuresOf(statement: Statement): Record<string, unknown> {
  return {
    statement_ref: statement.statement_ref,
    account: statement.account,
    currency: statement.currency,
    period: statement.period,
    opening: statement.opening.amount,
    closing: statement.closing.amount,
    claimed_movement: statement.closing.amount - statement.opening.amount,
    lines: statement.entries.length,
    sum: statement.entries.reduce((total, entry) => total + entry.amount, 0),
  }
}
