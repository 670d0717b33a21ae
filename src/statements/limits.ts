/**
 * @module What a statement file may hold, as a JSON body may: text within the same lengths and the same
 * free-text rule (no control character but tab, no unpaired surrogate), at most 10,000 lines in one file.
 */
import { freeTextProblem } from '../api/schemas/text.ts'
import { FileProblem, type Statement } from './types.ts'

/**
 * The longest text of each field, in UTF-16 code units as JSON Schema's maxLength counts: the bounds of
 * the JSON bodies that carry the same fields (a window's statement_ref, a statement line), and of an
 * account's external_id, which a statement's account identifier must equal.
 * test/statements/file-text.test.ts holds them equal to the schemas'.
 */
export const fileTextLengthsMax = {
  statementRef: 500,
  account: 64,
  reference: 500,
  description: 1000,
  counterpartyName: 500,
  counterpartyAccount: 100,
} as const

/** Lines in one file, all its statements together: the bound of one JSON upload of lines. */
export const statementLinesMax = 10_000

/**
 * Throws a FileProblem at the first field over its length or not free text (`/statements/<i>/lines/<j>/description`),
 * or at a statement past the file's line bound. Runs once a reader has built the statements, so the same
 * rule holds for every format, and the message says which field: the file's own place is in the reader.
 */
export function checkStatements(statements: readonly Statement[]): void {
  let lines = 0
  statements.forEach((statement, index) => {
    const path = `/statements/${index}`
    lines += statement.entries.length
    if (lines > statementLinesMax) {
      throw new FileProblem(`${path}/lines`, `the file holds ${lines} lines by statement ${index}, at most ${statementLinesMax} (as one upload of lines)`)
    }
    checkText(statement.statement_ref, `${path}/statement_ref`, fileTextLengthsMax.statementRef)
    checkText(statement.account, `${path}/account`, fileTextLengthsMax.account)
    statement.entries.forEach((entry, line) => {
      const at = `${path}/lines/${line}`
      checkText(entry.reference, `${at}/reference`, fileTextLengthsMax.reference)
      checkText(entry.description, `${at}/description`, fileTextLengthsMax.description)
      checkText(entry.counterparty?.name ?? null, `${at}/counterparty/name`, fileTextLengthsMax.counterpartyName)
      checkText(entry.counterparty?.account ?? null, `${at}/counterparty/account`, fileTextLengthsMax.counterpartyAccount)
    })
  })
}

function checkText(value: string | null, path: string, lengthMax: number): void {
  if (value === null) return
  if (value.length > lengthMax) throw new FileProblem(path, `${path} has ${value.length} characters, at most ${lengthMax}`)
  const problem = freeTextProblem(value)
  if (problem !== null) throw new FileProblem(path, `${path} ${problem}`)
}
