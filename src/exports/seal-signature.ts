/**
 * @module The seal's signature: Ed25519 (node:crypto) over the 32 bytes of the seal's SHA-256, base64. The
 * key pair is made at the edge (randomness stays out of src/ledger: test/ledger/purity.test.ts) and travels
 * in the logged command; the signer is handed to the ledger state like the hasher (seal-hash.ts). Ed25519
 * signatures are deterministic, so replay and restore sign alike (docs/API.md, "The seal").
 */

import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto'
import type { SealKeyPair, SealSigner } from '../ledger/state.js'

/** A new workspace key pair: the private key as base64 PKCS#8 DER, the public key as base64 of its raw 32 bytes. */
export function newSealKeyPair(): SealKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519')
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url')
  return { privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'), publicKey: raw.toString('base64') }
}

/** A new key pair as workspace.create carries it (ledger/system.ts). */
export function newSealKeyFields(): { seal_private_key: string; seal_public_key: string } {
  const pair = newSealKeyPair()
  return { seal_private_key: pair.privateKey, seal_public_key: pair.publicKey }
}

export const ed25519Signer: SealSigner = (privateKey, sha256Hex) => {
  const key = createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' })
  return sign(null, Buffer.from(sha256Hex, 'hex'), key).toString('base64')
}
