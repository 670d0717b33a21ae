/**
 * @module Standard Webhooks signing (https://www.standardwebhooks.com): `whsec_` secrets and the
 * `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` signature, with node:crypto (no dependency).
 */

import { createHmac, randomBytes } from 'node:crypto'

const secretPrefix = 'whsec_'
/** 24 random bytes (192 bits): within the convention's 24..64. */
const secretBytes = 24

/** A new subscription secret: made at the edge, passed into the command (randomness stays out of the core). */
export function newWebhookSecret(): string {
  return secretPrefix + randomBytes(secretBytes).toString('base64')
}

/** The `webhook-signature` header value: the HMAC key is the base64-decoded part after `whsec_`. */
export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  if (!secret.startsWith(secretPrefix)) throw new Error('a webhook secret starts with whsec_')
  const key = Buffer.from(secret.slice(secretPrefix.length), 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`
}
