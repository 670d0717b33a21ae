/**
 * src/shard/placement.ts on its own: the hash is FNV-1a over 32 bits (the published test vectors, read with 2^32
 * shards so the modulo keeps the whole hash), over UTF-16 code units (a character outside the BMP is its two
 * surrogates); fixed ids land on fixed shards; every shard number is in range; ids spread evenly.
 */
import t from 'tap'
import { shardOf } from '../../src/shard/placement.ts'

const whole = 2 ** 32

t.test('FNV-1a, 32 bits: the published vectors', async (t) => {
  t.equal(shardOf('', whole), 0x811c9dc5, 'the offset basis')
  t.equal(shardOf('a', whole), 0xe40c292c)
  t.equal(shardOf('foobar', whole), 0xbf9cf968)
})

t.test('over UTF-16 code units', async (t) => {
  t.equal(shardOf('é', whole), 0x6c0b6c44, 'U+00E9 is one unit, 0xe9')
  t.equal(shardOf('😀', whole), 0xcb31c4b8, 'U+1F600 is two units, 0xd83d 0xde00')
})

t.test('fixed ids, fixed shards', async (t) => {
  t.same(['', 'a', 'foobar', 'ws_1', 'acme'].map((id) => shardOf(id, 4)), [1, 0, 0, 3, 3])
  t.same(['', 'a', 'foobar', 'ws_1', 'acme'].map((id) => shardOf(id, 7)), [2, 5, 0, 4, 5])
  t.equal(shardOf('anything', 1), 0, 'one shard holds everything')
})

t.test('every id in range, the same on every call, spread evenly', async (t) => {
  for (const shards of [2, 3, 8, 16]) {
    const counts = new Array<number>(shards).fill(0)
    const ids = 16_000
    let outOfRange = 0
    let unstable = 0
    for (let index = 0; index < ids; index++) {
      const id = `ws_${index.toString(36)}`
      const shard = shardOf(id, shards)
      if (!Number.isInteger(shard) || shard < 0 || shard >= shards) outOfRange++
      else counts[shard]++
      if (shardOf(id, shards) !== shard) unstable++
    }
    t.equal(outOfRange, 0, `${shards} shards: in range`)
    t.equal(unstable, 0, `${shards} shards: stable`)
    const expected = ids / shards
    t.ok(counts.every((count) => Math.abs(count - expected) < expected * 0.1), `${shards} shards: within 10% of ${expected} each (${counts.join(', ')})`)
  }
})
