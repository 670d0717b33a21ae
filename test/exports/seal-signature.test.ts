/**
 * src/exports/seal-signature.ts on its own: a new key pair is Ed25519, its private key base64 PKCS#8 DER and its
 * public key base64 of the raw 32 bytes docs/API.md ("The seal") publishes; each pair is new; the fields
 * workspace.create carries are that pair; a signature is 64 bytes over the 32 bytes of the seal's SHA-256 (not its
 * hex text), checked here with node:crypto alone (test/support/seal-signature.ts), the same every time (replay and
 * restore sign alike), another for another seal or key, and verifying under no other key.
 */
import t from 'tap'
import { createHash, createPrivateKey, createPublicKey, verify } from 'node:crypto'
import { ed25519Signer, newSealKeyFields, newSealKeyPair } from '../../src/exports/seal-signature.ts'
import { signatureValid } from '../support/seal-signature.ts'

const seal = createHash('sha256').update('a closed window').digest('hex')
const other = createHash('sha256').update('another closed window').digest('hex')

t.test('a new key pair: Ed25519, PKCS#8 DER and the raw public key, both base64', async (t) => {
  const pair = newSealKeyPair()
  const privateKey = createPrivateKey({ key: Buffer.from(pair.privateKey, 'base64'), format: 'der', type: 'pkcs8' })
  t.equal(privateKey.asymmetricKeyType, 'ed25519')
  const raw = Buffer.from(pair.publicKey, 'base64')
  t.equal(raw.length, 32, 'the raw 32 bytes, no SPKI wrapping')
  t.equal(raw.toString('base64'), pair.publicKey, 'canonical base64')
  const derived = createPublicKey(privateKey).export({ format: 'jwk' }).x as string
  t.equal(Buffer.from(derived, 'base64url').toString('base64'), pair.publicKey, 'the public key of that private key')
  const again = newSealKeyPair()
  t.not(again.privateKey, pair.privateKey, 'each pair is new')
  t.not(again.publicKey, pair.publicKey)
})

t.test('newSealKeyFields: a new pair under the names workspace.create takes', async (t) => {
  const fields = newSealKeyFields()
  t.same(Object.keys(fields).sort(), ['seal_private_key', 'seal_public_key'])
  t.equal(Buffer.from(fields.seal_public_key, 'base64').length, 32)
  const signature = ed25519Signer(fields.seal_private_key, seal)
  t.equal(signatureValid(seal, signature, fields.seal_public_key), true, 'the two keys are one pair')
  t.not(newSealKeyFields().seal_private_key, fields.seal_private_key)
})

t.test('the signer: 64 bytes over the SHA-256\'s bytes, the same each time, valid under its key only', async (t) => {
  const pair = newSealKeyPair()
  const signature = ed25519Signer(pair.privateKey, seal)
  t.equal(Buffer.from(signature, 'base64').length, 64)
  t.equal(signatureValid(seal, signature, pair.publicKey), true)
  t.equal(ed25519Signer(pair.privateKey, seal), signature, 'deterministic: replay signs alike')
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(pair.publicKey, 'base64').toString('base64url') }, format: 'jwk' })
  t.equal(verify(null, Buffer.from(seal, 'hex'), key, Buffer.from(signature, 'base64')), true, 'over the 32 bytes')
  t.equal(verify(null, Buffer.from(seal, 'utf8'), key, Buffer.from(signature, 'base64')), false, 'not over the 64 characters of hex')
  t.equal(ed25519Signer(pair.privateKey, seal.toUpperCase()), signature, 'the hex read as bytes: its case does not matter')
  const otherSignature = ed25519Signer(pair.privateKey, other)
  t.not(otherSignature, signature, 'another seal, another signature')
  t.equal(signatureValid(other, signature, pair.publicKey), false, 'a signature is of its seal only')
  const stranger = newSealKeyPair()
  t.equal(signatureValid(seal, signature, stranger.publicKey), false, 'valid under no other key')
  t.not(ed25519Signer(stranger.privateKey, seal), signature)
})

t.test('the signer refuses a key that is not a PKCS#8 private key', async (t) => {
  t.throws(() => ed25519Signer(Buffer.from('not a key').toString('base64'), seal))
  t.throws(() => ed25519Signer(newSealKeyPair().publicKey, seal), 'a public key is no private key')
})
