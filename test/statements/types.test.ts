/**
 * What every statement reader shares (src/statements/types.ts): besides the statement shapes (types only), the
 * FileProblem a reader throws from deep inside, which carries where the problem is and becomes the detail of the
 * reader's statement_invalid answer; a reader never lets it escape.
 */
import t from 'tap'
import { readMt940 } from '../../src/statements/mt940.ts'
import { FileProblem } from '../../src/statements/types.ts'

t.test('a FileProblem is an Error with a path; its detail is the path and the message', async (t) => {
  const problem = new FileProblem('line 3', ':61: before the :20: that starts a statement')
  t.ok(problem instanceof Error)
  t.ok(problem instanceof FileProblem)
  t.equal(problem.path, 'line 3')
  t.equal(problem.message, ':61: before the :20: that starts a statement')
  t.same(problem.detail, { path: 'line 3', message: ':61: before the :20: that starts a statement' })
  t.not(problem.detail, problem.detail, 'a fresh detail each time: an answer cannot change the problem')
  t.match(String(problem.stack), /types\.test\.ts/, 'a stack from where it was thrown')
})

t.test('edge values: an empty path or message is kept as given', async (t) => {
  t.same(new FileProblem('', '').detail, { path: '', message: '' })
  t.same(new FileProblem('/Document/BkToCstmrStmt/Stmt[0]/Ntry[12]/Amt', 'missing amount').detail, { path: '/Document/BkToCstmrStmt/Stmt[0]/Ntry[12]/Amt', message: 'missing amount' })
})

t.test('a reader catches it and answers statement_invalid with its detail', async (t) => {
  const file = Buffer.from('ABNANL2A\n940\n:61:2601020102C500,00NTRFNONREF\n')
  const result = readMt940(file)
  t.equal(result.ok, false)
  if (result.ok) return
  t.equal(result.code, 'statement_invalid')
  t.same(result.details, [{ path: 'line 3', message: ':61: before the :20: that starts a statement' }])
})
