/** @module The one place a reader's result becomes an outcome: statements, or statement_invalid saying where. */
import { reject } from '../errors.ts'
import { checkStatements } from './limits.ts'
import { FileProblem, type ReadResult, type Statement } from './types.ts'

/**
 * Runs a reader body and checks what it read (limits.ts); a FileProblem either throws becomes
 * statement_invalid, any other error is a bug and passes.
 */
export function readGuarded(formatName: string, read: () => Statement[]): ReadResult {
  try {
    const statements = read()
    checkStatements(statements)
    if (statements.length === 0) return reject('statement_invalid', `The ${formatName} file holds no statement.`, [{ path: '/', message: 'no statement' }])
    return { ok: true, statements }
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error
    return reject('statement_invalid', `The ${formatName} file cannot be read: ${error.message}`, [error.detail])
  }
}
