/** @module One group commit as one row of the log (src/cluster/log-group.ts): framing, splitting, readers' positions and pages. */

import t from 'tap'
import { frameGroup, recordsOfRows, splitGroup, type GroupRow } from '../../src/cluster/log-group.ts'

const texts = (records: readonly Buffer[]) => records.map((record) => record.toString())

t.test('a group of one is the record itself; a larger group each record after its 4-byte big-endian length', async (t) => {
  const one = Buffer.from('alone')
  t.equal(frameGroup([one]), one, 'the record itself, not a copy')
  const framed = frameGroup([Buffer.from('ab'), new Uint8Array(0), Buffer.from('cde')])
  t.same([...framed], [0, 0, 0, 2, 0x61, 0x62, 0, 0, 0, 0, 0, 0, 0, 3, 0x63, 0x64, 0x65])
  t.same(texts(splitGroup(framed, 3)), ['ab', '', 'cde'])
  t.same(texts(splitGroup(Buffer.from([0, 0, 0, 0]), 1)), ['\u0000\u0000\u0000\u0000'], 'count 1: the bytes are the record, whatever they look like')
})

t.test('a view into a larger buffer is framed as the view', async (t) => {
  const whole = Buffer.from('0123456789')
  const framed = frameGroup([whole.subarray(2, 4), new Uint8Array(whole.buffer, whole.byteOffset + 7, 3)])
  t.same(texts(splitGroup(framed, 2)), ['23', '789'])
})

t.test('a row whose framing does not match its count or its bytes is refused', async (t) => {
  const framed = frameGroup([Buffer.from('ab'), Buffer.from('cd')])
  t.throws(() => splitGroup(framed, 3), /holds 2/)
  t.throws(() => splitGroup(framed.subarray(0, framed.length - 1), 2), /cut inside a record/)
  t.throws(() => splitGroup(Buffer.concat([framed, Buffer.from([0, 0])]), 2), /cut inside a length/)
  t.throws(() => splitGroup(framed, 0), /holding 0 records/)
})

t.test('rows split into records after a position (maybe inside a group), at most a page of them', async (t) => {
  const rows: GroupRow[] = [
    { seq: '1', epoch: '1', count: 1, record: Buffer.from('old1') },
    { seq: '4', epoch: '2', count: 3, record: frameGroup(['g2', 'g3', 'g4'].map((text) => Buffer.from(text))) },
    { seq: '6', epoch: '2', count: 2, record: frameGroup(['g5', 'g6'].map((text) => Buffer.from(text))) },
  ]
  const page = (afterSeq: number, limit: number) => recordsOfRows(rows.filter((row) => Number(row.seq) > afterSeq), afterSeq, limit)
    .map((record) => [record.seq, record.epoch, record.record.toString()])
  t.same(page(0, 100), [[1, 1, 'old1'], [2, 2, 'g2'], [3, 2, 'g3'], [4, 2, 'g4'], [5, 2, 'g5'], [6, 2, 'g6']])
  t.same(page(2, 100), [[3, 2, 'g3'], [4, 2, 'g4'], [5, 2, 'g5'], [6, 2, 'g6']], 'from inside a group')
  t.same(page(2, 3), [[3, 2, 'g3'], [4, 2, 'g4'], [5, 2, 'g5']], 'a page cut inside the next group')
  t.same(page(0, 2), [[1, 1, 'old1'], [2, 2, 'g2']])
  t.same(page(6, 100), [])
  t.same(page(0, 0), [], 'a page of none')
})
