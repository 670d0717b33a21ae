/**
 * @module The worker thread of statement-worker-pool.ts: reads the statement files it is sent, one at a time,
 * and checks their balances. A file of many statements goes back in several messages, so the main thread
 * takes their copies in several turns of its event loop rather than one long one.
 */

import { parentPort } from 'node:worker_threads'
import { checkBalances } from '../statements/balance.js'
import { readStatements } from '../statements/read.js'
import type { ReadResult, StatementFormat } from '../statements/types.js'

/** Statements per message: a few milliseconds of copying on the main thread each. */
const statementsPerMessage = 256

function readChecked(message: { bytes: Uint8Array; contentType: string | null; format: StatementFormat | null }): ReadResult {
  const result = readStatements(message.bytes, message.contentType, message.format)
  if (!result.ok) return result
  return checkBalances(result.statements) ?? result
}

parentPort?.on('message', (message: { id: number; bytes: Uint8Array; contentType: string | null; format: StatementFormat | null }) => {
  try {
    const result = readChecked(message)
    if (!result.ok || result.statements.length <= statementsPerMessage) return parentPort!.postMessage({ id: message.id, result })
    for (let start = 0; start < result.statements.length; start += statementsPerMessage) {
      parentPort!.postMessage({ id: message.id, part: result.statements.slice(start, start + statementsPerMessage) })
    }
    parentPort!.postMessage({ id: message.id, result: { ok: true, statements: [] } })
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) })
  }
})
