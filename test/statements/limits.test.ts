/**
 * src/statements/limits.ts on its own, over hand-made statements: every field up to its length passes, one
 * code unit more is refused naming the field's path; tab is free text, other control characters and unpaired
 * surrogates are not; absent fields (null) ask nothing; the first problem in file order is the one thrown; the
 * file's lines counted over all its statements, 10,000 passing and one more refused at the statement that
 * crosses the bound.
 */
import t from 'tap'
import { surrogateProblem, textProblem } from '../../src/api/schemas/text.ts'
import { checkStatements, fileTextLengthsMax, statementLinesMax } from '../../src/statements/limits.ts'
import { FileProblem, type Statement, type StatementEntry } from '../../src/statements/types.ts'

type EntryText = Pick<StatementEntry, 'reference' | 'description' | 'counterparty'>

function entry(text: Partial<EntryText> = {}): StatementEntry {
  return { amount: 1, mark: 'credit', reversal: false, date: '2026-11-02', value_date: null, reference: 'ref', description: 'desc', counterparty: { name: 'ACME', account: 'DE89' }, ...text }
}

function statement(fields: Partial<Pick<Statement, 'statement_ref' | 'account'>> = {}, entries: readonly StatementEntry[] = [entry()]): Statement {
  return {
    format: 'mt940', statement_ref: 'st-1', account: 'DE89370400440532013000', currency: 'EUR', opening: { amount: 0, date: '2026-10-31' }, closing: { amount: entries.length, date: '2026-11-30' },
    period: { from: '2026-11-01', to: '2026-11-30' }, entries, ...fields,
  }
}

/** The FileProblem thrown, as path and message; null when none is. */
function problem(statements: readonly Statement[]): { path: string; message: string } | null {
  try {
    checkStatements(statements)
    return null
  } catch (error) {
    if (!(error instanceof FileProblem)) throw error
    return error.detail
  }
}

t.test('every field up to its length passes; one more is refused, naming the field', async (t) => {
  const at = '/statements/0'
  const cases: [string, number, (text: string) => Statement][] = [
    [`${at}/statement_ref`, fileTextLengthsMax.statementRef, (text) => statement({ statement_ref: text })],
    [`${at}/account`, fileTextLengthsMax.account, (text) => statement({ account: text })],
    [`${at}/lines/0/reference`, fileTextLengthsMax.reference, (text) => statement({}, [entry({ reference: text })])],
    [`${at}/lines/0/description`, fileTextLengthsMax.description, (text) => statement({}, [entry({ description: text })])],
    [`${at}/lines/0/counterparty/name`, fileTextLengthsMax.counterpartyName, (text) => statement({}, [entry({ counterparty: { name: text, account: null } })])],
    [`${at}/lines/0/counterparty/account`, fileTextLengthsMax.counterpartyAccount, (text) => statement({}, [entry({ counterparty: { name: null, account: text } })])],
  ]
  for (const [path, lengthMax, make] of cases) {
    t.equal(problem([make('x'.repeat(lengthMax))]), null, `${path}: ${lengthMax} characters pass`)
    t.same(problem([make('x'.repeat(lengthMax + 1))]), { path, message: `${path} has ${lengthMax + 1} characters, at most ${lengthMax}` }, `${path}: ${lengthMax + 1} refused`)
    t.equal(problem([make('')]), null, `${path}: empty passes`)
  }
  t.equal(problem([statement({ account: '€'.repeat(fileTextLengthsMax.account) })]), null, 'lengths count UTF-16 code units, not bytes')
  t.same(problem([statement({ account: '😀'.repeat(fileTextLengthsMax.account / 2 + 1) })])?.path, `${at}/account`, 'a character outside the BMP counts two')
})

t.test('free text: tab passes; control characters and unpaired surrogates are refused', async (t) => {
  t.equal(problem([statement({}, [entry({ description: 'a\tb' })])]), null)
  for (const bad of ['a\nb', 'a\u0000', '\u001f', '\u007f', '\u0085', '\u009f']) {
    t.same(problem([statement({}, [entry({ description: bad })])]), { path: '/statements/0/lines/0/description', message: `/statements/0/lines/0/description ${textProblem}` }, JSON.stringify(bad))
  }
  for (const bad of ['\ud800', 'a\udc00b', '\udbff']) {
    t.same(problem([statement({ statement_ref: bad })]), { path: '/statements/0/statement_ref', message: `/statements/0/statement_ref ${surrogateProblem}` }, `${JSON.stringify(bad)} unpaired`)
  }
  t.equal(problem([statement({ statement_ref: '\ud83d\ude00 ü € \u00a0' })]), null, 'a surrogate pair, non-ASCII, U+00A0 are text')
})

t.test('absent fields ask nothing', async (t) => {
  t.equal(problem([statement({}, [entry({ reference: null, description: null, counterparty: null })])]), null)
  t.equal(problem([statement({}, [entry({ counterparty: { name: null, account: null } })])]), null)
  t.equal(problem([]), null, 'no statement')
  t.equal(problem([statement({}, [])]), null, 'a statement with no lines')
})

t.test('the first problem in file order is the one named', async (t) => {
  const long = 'x'.repeat(fileTextLengthsMax.reference + 1)
  const file = [
    statement(),
    statement({}, [entry(), entry({ counterparty: { name: '\u0001', account: null }, reference: long })]),
    statement({ statement_ref: '\u0002' }),
  ]
  t.equal(problem(file)?.path, '/statements/1/lines/1/reference', 'statement 1 before 2; in a line, the reference before the counterparty')
  t.equal(problem([statement({ statement_ref: '\u0001', account: '\u0001' })])?.path, '/statements/0/statement_ref', 'statement_ref before account')
  t.equal(problem([statement({ account: '\u0001' }, [entry({ reference: '\u0001' })])])?.path, '/statements/0/account', 'the statement\'s fields before its lines')
})

t.test(`at most ${statementLinesMax} lines in one file, all statements together`, async (t) => {
  const lines = (count: number) => Array.from({ length: count }, () => entry())
  t.equal(problem([statement({}, lines(statementLinesMax))]), null, 'exactly the bound in one statement')
  t.equal(problem([statement({}, lines(4000)), statement({}, lines(6000))]), null, 'exactly the bound over two')
  t.same(problem([statement({}, lines(4000)), statement({}, lines(6000)), statement({}, [])]), null, 'an empty statement after it adds nothing')
  t.same(problem([statement({}, lines(4000)), statement({}, lines(6000)), statement({}, lines(1)), statement({ statement_ref: '\u0001' })]), {
    path: '/statements/2/lines', message: `the file holds ${statementLinesMax + 1} lines by statement 2, at most ${statementLinesMax} (as one upload of lines)`,
  }, 'one more: refused at the statement that crosses, before any later problem')
  t.equal(problem([statement({}, lines(statementLinesMax + 1))])?.path, '/statements/0/lines')
})
