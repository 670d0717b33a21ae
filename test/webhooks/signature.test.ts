/**
 * Standard Webhooks signing (src/webhooks/signature.ts): the published test vector of the convention's reference
 * libraries reproduced exactly (a receiver's off-the-shelf verifier accepts what we send), every signed part
 * bound into the signature, and the secrets it makes.
 */
import { createHmac } from 'node:crypto'
import t from 'tap'
import { newWebhookSecret, webhookSignature } from '../../src/webhooks/signature.ts'

/** The Standard Webhooks reference vector (the same in its Go, Python, JavaScript, PHP and Rust libraries). */
const vector = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestampSeconds: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
}

t.test('the published Standard Webhooks vector reproduces exactly', async (t) => {
  t.equal(webhookSignature(vector.secret, vector.id, vector.timestampSeconds, vector.body), vector.signature)
})

t.test('every signed part changes the signature: id, timestamp, body, secret', async (t) => {
  const { secret, id, timestampSeconds, body, signature } = vector
  const variants = [
    webhookSignature(secret, `${id}x`, timestampSeconds, body),
    webhookSignature(secret, id, timestampSeconds + 1, body),
    webhookSignature(secret, id, timestampSeconds, `${body} `),
    webhookSignature('whsec_' + Buffer.alloc(24, 7).toString('base64'), id, timestampSeconds, body),
  ]
  t.ok(variants.every((variant) => variant !== signature), 'none equals the vector\'s')
  t.equal(new Set(variants).size, variants.length, 'and all differ from each other')
})

t.test('the key is the base64 after whsec_, the content is "<id>.<timestamp>.<body>" as UTF-8', async (t) => {
  const key = Buffer.from([0, 1, 2, 250, 251, 252, 253, 254, 255, 128, 64, 32])
  const body = '{"memo":"café ✓ 𝄞"}'
  const expected = createHmac('sha256', key).update(Buffer.from(`msg_7_0.1700000000.${body}`, 'utf8')).digest('base64')
  t.equal(webhookSignature(`whsec_${key.toString('base64')}`, 'msg_7_0', 1700000000, body), `v1,${expected}`)
})

t.test('a secret without the whsec_ prefix is refused, not used as a raw key', async (t) => {
  t.throws(() => webhookSignature('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', vector.id, vector.timestampSeconds, vector.body), /whsec_/)
  t.throws(() => webhookSignature('', vector.id, vector.timestampSeconds, vector.body), /whsec_/)
  t.throws(() => webhookSignature('WHSEC_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', vector.id, vector.timestampSeconds, vector.body), /whsec_/)
})

t.test('a new secret is whsec_ and 24 random bytes in base64, different every time, and signs', async (t) => {
  const secrets = Array.from({ length: 50 }, () => newWebhookSecret())
  for (const secret of secrets) {
    t.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/, 'whsec_ and 32 base64 characters (24 bytes, no padding)')
    t.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 24)
  }
  t.equal(new Set(secrets).size, secrets.length, 'no two alike')
  const [secret] = secrets
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64')
  t.equal(webhookSignature(secret, 'msg_1_0', 1, '{}'), `v1,${createHmac('sha256', key).update('msg_1_0.1.{}').digest('base64')}`)
})
