/**
 * @module The seal key given on upgrade (commands.ts SealKeyGive): a workspace created before keys existed
 * gets its key pair, and every closed window it sealed by its SHA-256 alone is signed now, its sha256
 * unchanged, with a `seal.signed` history event ("signed on upgrade"). The seal does not cover that event
 * (seal.ts), so the sha256 recomputes from the export as before.
 */

import { reject } from '../errors.js'
import type { SealKeyGive } from './commands.js'
import { accept, type Outcome } from './outcome.js'
import { sealSignedEventType, signatureOf } from './seal.js'
import type { WorkspaceState } from './state.js'
import { pushHistory } from './windows.js'

/** What the history event says: the window was closed before the workspace had a key. */
export const signedOnUpgradeReason = 'signed on upgrade'

export function giveSealKey(state: WorkspaceState, command: SealKeyGive): Outcome {
  if (state.sealKey !== null) return reject('request_invalid', 'The workspace has a seal key already.')
  state.sealKey = { privateKey: command.private_key, publicKey: command.public_key }
  const signed: string[] = []
  for (const window of state.windows.windows) {
    if (window.state !== 'closed' || window.seal === null || window.sealSignature !== null) continue
    window.sealSignature = signatureOf(state, window.seal)
    if (window.sealSignature === null) continue
    pushHistory(window, command, sealSignedEventType, window.frozenResidual!, { reason: signedOnUpgradeReason })
    signed.push(window.id)
  }
  return accept(200, { public_key: command.public_key, signed })
}
