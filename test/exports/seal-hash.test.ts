/**
 * The seal's hash (src/exports/seal-hash.ts): SHA-256 in lowercase hex of the chunks joined, as UTF-8, whatever
 * the chunking and across its 64 KiB batches: published vectors, and agreement with a one-shot hash.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { sha256Hex } from '../../src/exports/seal-hash.ts'

const oneShot = (text: string) => createHash('sha256').update(Buffer.from(text, 'utf8')).digest('hex')

t.test('the FIPS 180-2 vectors, however split', async (t) => {
  t.equal(sha256Hex([]), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855', 'no chunks: the empty string')
  t.equal(sha256Hex(['']), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  t.equal(sha256Hex(['abc']), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  t.equal(sha256Hex(['a', '', 'b', 'c']), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  const long = 'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq'
  t.equal(sha256Hex([long]), '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1', '448-bit message')
})

t.test('large and non-ASCII content across the 64 KiB batches equals one hash of the joined text', async (t) => {
  const chunks = Array.from({ length: 5_000 }, (_, index) => `{"id":"l${index}","description":"café ✓ 𝄞 ${'x'.repeat(index % 97)}"},`)
  const joined = chunks.join('')
  t.ok(joined.length > 3 * 64 * 1024, 'several batches')
  t.equal(sha256Hex(chunks), oneShot(joined))
  t.equal(sha256Hex([joined]), oneShot(joined), 'one chunk larger than a batch')
  t.equal(sha256Hex(joined.match(/[\s\S]{1,1000}/gu)!), oneShot(joined), 'chunks cut at other places')
  t.match(sha256Hex(chunks), /^[0-9a-f]{64}$/, 'lowercase hex')
})

t.test('any iterable of chunks, read once', async (t) => {
  function* generated(): Generator<string> { yield '{"a":'; yield '1}' }
  t.equal(sha256Hex(generated()), oneShot('{"a":1}'))
})
