/** Reading statement files off the event loop (src/api/statement-worker-pool.ts): answers per file, large files in parts, order kept. */
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { filesReadInWorker, readInWorker } from '../../src/api/statement-worker-pool.ts'
import type { Statement } from '../../src/statements/types.ts'
import { writeMt940 } from '../support/statement-writers.ts'

function statement(index: number, opening: number, amount: number): Statement {
  return {
    format: 'mt940', statement_ref: `S/${index}`, account: `ACC${index}`, currency: 'EUR', opening: { amount: opening, date: '2026-10-31' },
    closing: { amount: opening + amount, date: '2026-11-30' }, period: { from: '2026-11-01', to: '2026-11-30' },
    entries: [{ amount, mark: amount < 0 ? 'debit' : 'credit', reversal: false, date: '2026-11-10', value_date: null, reference: `R${index}`, description: null, counterparty: null }],
  }
}

const mt940 = (statements: readonly Statement[]) => Buffer.from(writeMt940(statements))

t.test('a file read and its balances checked in the worker; each call counted', async (t) => {
  const before = filesReadInWorker()
  const result = await readInWorker(mt940([statement(1, 100, -40)]), 'application/x-mt940', null)
  if (!result.ok) throw new Error(JSON.stringify(result))
  t.equal(result.statements.length, 1)
  t.match(result.statements[0], { statement_ref: 'S/1', opening: { amount: 100 }, closing: { amount: 60 } })
  t.equal(filesReadInWorker(), before + 1)
  t.match(await readInWorker(Buffer.from(''), null, null), { ok: false, code: 'statement_invalid' }, 'an empty file')
  t.equal(filesReadInWorker(), before + 2, 'a refused file is counted too')
  const unbalanced = { ...statement(2, 0, 5), closing: { amount: 6, date: '2026-11-30' } }
  t.match(await readInWorker(mt940([unbalanced]), null, 'mt940'), { ok: false, code: 'statement_unbalanced' })
})

t.test('many files at once: each answer is its own file\'s', async (t) => {
  const files = Array.from({ length: 12 }, (_, index) => index % 3 === 2 ? Buffer.from(`junk ${index}`) : mt940([statement(index, index, index + 1)]))
  const results = await Promise.all(files.map((bytes) => readInWorker(bytes, null, null)))
  results.forEach((result, index) => {
    if (index % 3 === 2) return t.equal(result.ok, false, `file ${index} refused`)
    if (!result.ok) return t.fail(`file ${index} refused`)
    t.equal(result.statements[0].statement_ref, `S/${index}`)
    t.equal(result.statements[0].closing.amount, index + index + 1)
  })
})

t.test('a file of more statements than one message holds comes back whole and in order', async (t) => {
  for (const count of [256, 257, 600]) {
    const statements = Array.from({ length: count }, (_, index) => statement(index, 0, index + 1))
    const result = await readInWorker(mt940(statements), 'application/x-mt940', null)
    if (!result.ok) throw new Error(JSON.stringify(result))
    t.equal(result.statements.length, count, `${count} statements`)
    t.same(result.statements.map((read) => read.statement_ref), statements.map((written) => written.statement_ref), 'in the file\'s order')
  }
  const small = await readInWorker(mt940([statement(7, 0, 1)]), null, null)
  t.equal(small.ok && small.statements.length, 1, 'the parts of the large file are not handed to the next one')
})

t.test('the worker keeps no process alive once its files are read', async (t) => {
  const script = `import { readInWorker } from ${JSON.stringify(new URL('../../src/api/statement-worker-pool.ts', import.meta.url).href)}
const result = await readInWorker(Buffer.from('junk'), null, null)
console.log(result.ok ? 'read' : result.code)`
  const child = spawnSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 })
  t.equal(child.signal, null, 'exited by itself, not killed at the timeout')
  t.equal(child.status, 0, child.stderr)
  t.equal(child.stdout.trim(), 'statement_invalid')
})
