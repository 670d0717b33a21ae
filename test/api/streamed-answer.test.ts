/**
 * Streamed answers (src/api/streamed-answer.ts): pullFrom turns a chunk source into the transport's pull, one
 * chunk per pull, the next only when pulled again, null at the end, and a failed page as an Error (a non-Error
 * rejection wrapped); a StreamedAnswer holds what the transport writes before the chunks.
 */
import t from 'tap'
import { pullFrom, StreamedAnswer, type Chunk, type ChunkSource } from '../../src/api/streamed-answer.ts'

function source(chunks: (Chunk | Error | string[])[]): ChunkSource & { nexts: number; closed: boolean } {
  return {
    nexts: 0,
    closed: false,
    async next() {
      this.nexts++
      const item = chunks.shift()
      if (item === undefined) return null
      if (item instanceof Error) throw item
      if (Array.isArray(item)) return Promise.reject(item[0])
      return item
    },
    close() { this.closed = true },
  }
}

function pullOnce(pull: ReturnType<typeof pullFrom>): Promise<{ chunk: Chunk | null; error: Error | null }> {
  return new Promise((resolve) => pull((chunk, error) => resolve({ chunk, error })))
}

t.test('one chunk per pull, in order, then null; nothing read ahead', async (t) => {
  const chunks = source(['a', Buffer.from('b')])
  const pull = pullFrom(chunks)
  t.equal(chunks.nexts, 0, 'nothing read before the first pull')
  t.same(await pullOnce(pull), { chunk: 'a', error: null })
  t.equal(chunks.nexts, 1)
  const second = await pullOnce(pull)
  t.ok(Buffer.isBuffer(second.chunk) && second.chunk.toString() === 'b', 'a Buffer passes as is')
  t.same(await pullOnce(pull), { chunk: null, error: null })
  t.equal(chunks.nexts, 3)
  t.notOk(chunks.closed, 'closing is the transport\'s call')
})

t.test('a refused page is an Error; a rejection with another value is wrapped in one', async (t) => {
  const failure = new Error('an export page was refused: 503')
  const chunks = source(['a', failure, ['plain text reason']])
  const pull = pullFrom(chunks)
  await pullOnce(pull)
  const failed = await pullOnce(pull)
  t.equal(failed.chunk, null)
  t.equal(failed.error, failure)
  const wrapped = await pullOnce(pull)
  t.ok(wrapped.error instanceof Error)
  t.equal(wrapped.error?.message, 'plain text reason')
})

t.test('a streamed answer holds its status, content type, headers and source', async (t) => {
  const chunks = source([])
  const answer = new StreamedAnswer(200, 'text/csv; charset=utf-8', [['content-disposition', 'attachment; filename="entries.csv"']], chunks)
  t.equal(answer.status, 200)
  t.equal(answer.contentType, 'text/csv; charset=utf-8')
  t.same(answer.headers, [['content-disposition', 'attachment; filename="entries.csv"']])
  t.equal(answer.source, chunks)
})
