/**
 * Ledger ids (src/ledger/ids.ts): prefix, workspace tag, nine base-36 digits; string order is creation order; an id
 * reads back as its sequence number only in its own workspace and under its own prefix, anything else is 0.
 */
import t from 'tap'
import { makeId, parseId, type IdPrefix } from '../../src/ledger/ids.ts'

const tag = 'k3x9q2a'

t.test('an id is the prefix, the tag and the seq in nine zero-padded base-36 digits', async (t) => {
  t.equal(makeId('ent_', tag, 1), 'ent_k3x9q2a000000001')
  t.equal(makeId('acc_', tag, 35), 'acc_k3x9q2a00000000z')
  t.equal(makeId('rec_', tag, 36), 'rec_k3x9q2a000000010')
  t.equal(makeId('mat_', tag, 36 ** 9 - 1), 'mat_k3x9q2azzzzzzzzz', 'the largest nine digits hold')
  t.equal(makeId('wh_', tag, 1_000_000), `wh_${tag}00000lfls`)
})

t.test('within a workspace the string order of ids is their creation order', async (t) => {
  const seqs = [1, 2, 9, 10, 35, 36, 37, 1_295, 1_296, 46_655, 46_656, 1e6, 1e9, 1e12, 36 ** 9 - 1]
  const ids = seqs.map((seq) => makeId('ent_', tag, seq))
  t.same([...ids].sort(), ids)
})

t.test('an id of ours reads back as its seq, for every prefix', async (t) => {
  const prefixes: IdPrefix[] = ['acc_', 'ent_', 'rec_', 'mat_', 'wh_']
  for (const prefix of prefixes) {
    for (const seq of [1, 36, 123_456_789, 36 ** 9 - 1]) t.equal(parseId(prefix, tag, makeId(prefix, tag, seq)), seq, `${prefix} ${seq}`)
  }
})

t.test('anything else is 0: another workspace, another prefix, another length, characters outside [0-9a-z]', async (t) => {
  const id = makeId('ent_', tag, 42)
  t.equal(parseId('ent_', 'zzzzzzz', id), 0, 'another workspace\'s tag')
  t.equal(parseId('acc_', tag, id), 0, 'another kind of object')
  t.equal(parseId('ent_', tag, id.toUpperCase()), 0, 'upper case')
  t.equal(parseId('ent_', tag, id.slice(0, -1)), 0, 'one digit short')
  t.equal(parseId('ent_', tag, `${id}0`), 0, 'one digit more')
  t.equal(parseId('ent_', tag, 'ent_k3x9q2a0000000-1'), 0, 'a sign')
  t.equal(parseId('ent_', tag, 'ent_k3x9q2a 00000001'), 0, 'a space parseInt would skip')
  t.equal(parseId('ent_', tag, 'ent_k3x9q2a00000001.'), 0, 'a trailing dot')
  t.equal(parseId('ent_', tag, 'ent_k3x9q2a000000000'), 0, 'seq 0 is no object')
  t.equal(parseId('ent_', tag, ''), 0)
})
