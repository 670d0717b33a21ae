/** @module The worker thread of statement-worker-pool.ts: reads the statement files it is sent, one at a time. */

import { parentPort } from 'node:worker_threads'
import { readStatements } from '../statements/read.js'

parentPort?.on('message', (message: { id: number; bytes: Uint8Array; contentType: string | null; format: 'camt053' | 'mt940' | 'bai2' | null }) => {
  try {
    parentPort!.postMessage({ id: message.id, result: readStatements(message.bytes, message.contentType, message.format) })
  } catch (error) {
    parentPort!.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) })
  }
})
