/**
 * @module Test support: a seal's Ed25519 signature checked with node:crypto against a public key given as
 * docs/API.md, "The seal", publishes it (base64 of the raw 32 bytes), and scripts/verify-seal.mjs run as
 * an auditor runs it. Nothing of src/ is used.
 */

import { spawnSync } from 'node:child_process'
import { createPublicKey, verify } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { repositoryRoot } from './process.ts'

/** True when `signature` (base64) is an Ed25519 signature of the 32 bytes of `sha256` (hex) by `publicKey` (base64, raw 32 bytes). */
export function signatureValid(sha256: string, signature: string, publicKey: string): boolean {
  const raw = Buffer.from(publicKey, 'base64')
  if (raw.length !== 32) throw new Error(`a raw Ed25519 public key is 32 bytes, got ${raw.length}`)
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' })
  return verify(null, Buffer.from(sha256, 'hex'), key, Buffer.from(signature, 'base64'))
}

export interface ScriptRun { readonly code: number | null; readonly stdout: string; readonly stderr: string }

/** scripts/verify-seal.mjs on a pack written to `dir`, with these further arguments; never waits on stdin. */
export function verifySealScript(dir: string, pack: unknown, args: readonly string[] = []): ScriptRun {
  const file = path.join(dir, `pack-${process.hrtime.bigint()}.json`)
  fs.writeFileSync(file, JSON.stringify(pack))
  const run = spawnSync(process.execPath, [path.join(repositoryRoot, 'scripts/verify-seal.mjs'), file, ...args], { encoding: 'utf8', input: '', timeout: 10_000 })
  return { code: run.status, stdout: run.stdout, stderr: run.stderr }
}
