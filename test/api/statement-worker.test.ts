/**
 * src/api/statement-worker.ts on its own, in a worker thread of its own started as statement-worker-pool.ts starts
 * it under tsx: each file sent is read and its balances checked, the answer under the id it came with; a readable,
 * balanced file of up to 256 statements in one message; more in parts of at most 256 in file order, then an empty
 * final result; an unreadable or unbalanced file answered with its refusal, whole; a message it cannot read at all
 * answered with an error, the worker serving on.
 */
import t from 'tap'
import { Worker } from 'node:worker_threads'
import { checkBalances } from '../../src/statements/balance.ts'
import { readStatements } from '../../src/statements/read.ts'
import type { Statement } from '../../src/statements/types.ts'
import { fixture } from '../statements/fixtures.ts'

type Reply = { id: number; part?: Statement[]; result?: any; error?: string }

function startWorker(): Worker {
  const source = new URL('../../src/api/statement-worker.ts', import.meta.url).href
  return new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}) })`, { eval: true })
}

/** Every reply to `id`, up to and with the one that ends it (a result or an error); bounded by a timeout. */
function repliesTo(worker: Worker, id: number): Promise<Reply[]> {
  return new Promise((resolve, reject) => {
    const replies: Reply[] = []
    const timer = setTimeout(() => { worker.off('message', onMessage); reject(new Error(`no final reply to ${id} in 60 s`)) }, 60_000)
    function onMessage(reply: Reply): void {
      if (reply.id !== id) return
      replies.push(reply)
      if (reply.part !== undefined) return
      clearTimeout(timer)
      worker.off('message', onMessage)
      resolve(replies)
    }
    worker.on('message', onMessage)
  })
}

function send(worker: Worker, id: number, bytes: unknown, contentType: string | null = null, format: string | null = null): Promise<Reply[]> {
  const replies = repliesTo(worker, id)
  worker.postMessage({ id, bytes, contentType, format })
  return replies
}

/** An MT940 file of `count` statements, a day each from 2020-01-01, one credit of 1,00 each; the last one's closing off by `lastOff` cents. */
function mt940(count: number, lastOff = 0): Buffer {
  const day = (index: number) => new Date(Date.UTC(2020, 0, 1 + index)).toISOString().slice(2, 10).replaceAll('-', '')
  const money = (cents: number) => `${Math.floor(cents / 100)},${String(cents % 100).padStart(2, '0')}`
  const blocks = Array.from({ length: count }, (_, index) => {
    const closing = 10_000 + (index + 1) * 100 + (index === count - 1 ? lastOff : 0)
    return `:20:ST${index}\n:25:DE89370400440532013000\n:28C:${index + 1}\n:60F:C${day(index)}EUR${money(10_000 + index * 100)}\n:61:${day(index)}C1,00NTRFREF${index}\n:86:line ${index}\n:62F:C${day(index)}EUR${money(closing)}\n-`
  })
  return Buffer.from(`${blocks.join('\n')}\n`, 'latin1')
}

t.test('the worker: files read and checked, answered by id', async (t) => {
  const worker = startWorker()
  t.teardown(() => worker.terminate())

  const camt = fixture('camt053', 'v02-jpy-two-statements-crlf.xml')
  const [one] = await send(worker, 7, camt, 'application/xml')
  t.same(one, { id: 7, result: JSON.parse(JSON.stringify(readStatements(camt, 'application/xml', null))) }, 'a small file: one message, the reader\'s answer')
  t.equal(one.result.ok, true)
  t.equal(one.result.statements.length, 2)

  const [small] = await send(worker, 8, mt940(256))
  t.equal(small.result.statements.length, 256, '256 statements: still one message')

  const large = mt940(600)
  const replies = await send(worker, 9, large, null, 'mt940')
  const parts = replies.filter((reply) => reply.part !== undefined).map((reply) => reply.part!)
  t.same(parts.map((part) => part.length), [256, 256, 88], '600 statements: parts of at most 256')
  t.same(replies[replies.length - 1], { id: 9, result: { ok: true, statements: [] } }, 'then an empty final result')
  const expected = readStatements(large, null, 'mt940')
  t.same(parts.flat(), JSON.parse(JSON.stringify(expected.ok ? expected.statements : null)), 'the parts are the statements, in file order')

  const unbalanced = mt940(600, 1)
  const [refusal, ...rest] = await send(worker, 10, unbalanced)
  t.same(rest, [], 'a refusal is one message, however many statements the file holds')
  const read = readStatements(unbalanced)
  t.same(refusal.result, JSON.parse(JSON.stringify(checkBalances(read.ok ? read.statements : []))), 'the balance check\'s answer')
  t.equal(refusal.result.code, 'statement_unbalanced')
  t.same(refusal.result.unbalanced.map((each: any) => each.statement), [599], 'the last statement named')

  const [invalid] = await send(worker, 11, Buffer.from('date,amount\n'))
  t.match(invalid, { id: 11, result: { ok: false, code: 'statement_invalid' } }, 'a file of no format: the reader\'s refusal')
  const [wrong] = await send(worker, 12, camt, null, 'bai2')
  t.match(wrong, { id: 12, result: { ok: false, code: 'statement_invalid' } }, 'the format named is the one read')

  const [broken] = await send(worker, 13, null)
  t.equal(broken.id, 13)
  t.equal(broken.result, undefined)
  t.type(broken.error, 'string', 'a message it cannot read: an error, not a crash')
  t.ok(broken.error!.length > 0)
  const [after] = await send(worker, 14, camt)
  t.equal(after.result.ok, true, 'and it serves on')

  const both = Promise.all([send(worker, 21, camt), send(worker, 20, Buffer.from('nothing'))])
  const [[first], [second]] = await both
  t.equal(first.result.ok, true, 'two files at once: each answer under its own id')
  t.equal(second.result.ok, false)
})
