/**
 * @module Reading statement files off the event loop: one worker thread, started on first use and unref'd
 * (it never keeps the process alive), reads files in the order they come and checks their balances. Every
 * file goes there, however small: a 16 MiB camt.053 takes seconds to parse, and a hostile 250 KB one
 * (63,000 empty elements) 200 ms; on the event loop either would hold up every request of every workspace.
 */

import type { Worker } from 'node:worker_threads'
import type { ReadResult, Statement, StatementFormat } from '../statements/types.js'
import { siblingModuleUrl, startWorkerThread } from '../worker-thread.js'

interface Pending {
  readonly resolve: (result: ReadResult) => void
  readonly reject: (error: Error) => void
  /** The statements of a large file, as they come in several messages (statement-worker.ts). */
  readonly parts: Statement[][]
}

type WorkerMessage = { id: number; part?: Statement[]; result?: ReadResult; error?: string }

// The worker is the process's, as the event loop is: one per process, whatever the number of services.
let worker: Worker | null = null
let nextId = 1
const pending = new Map<number, Pending>()

function failAll(error: Error): void {
  worker = null
  for (const [id, waiting] of pending) {
    pending.delete(id)
    waiting.reject(error)
  }
}

function started(): Worker {
  if (worker !== null) return worker
  const created = startWorkerThread(siblingModuleUrl(import.meta.url, './statement-worker'))
  created.unref()
  created.on('message', (message: WorkerMessage) => {
    const waiting = pending.get(message.id)
    if (waiting === undefined) return
    if (message.part !== undefined) return void waiting.parts.push(message.part)
    pending.delete(message.id)
    if (message.result !== undefined) waiting.resolve(joined(waiting.parts, message.result))
    else waiting.reject(new Error(message.error ?? 'the statement reader failed'))
    if (pending.size === 0) created.unref()
  })
  created.on('error', (error) => failAll(error))
  created.on('exit', (code) => failAll(new Error(`the statement reader worker exited (${code})`)))
  worker = created
  return created
}

function joined(parts: readonly Statement[][], result: ReadResult): ReadResult {
  if (parts.length === 0 || !result.ok) return result
  return { ok: true, statements: parts.flat() }
}

/** readStatements(bytes, contentType, format) and checkBalances in the worker thread. */
export function readInWorker(bytes: Uint8Array, contentType: string | null, format: StatementFormat | null): Promise<ReadResult> {
  const target = started()
  const id = nextId++
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject, parts: [] })
    // Held while a file is being read, so a service waiting for the answer does not see the loop empty.
    target.ref()
    target.postMessage({ id, bytes, contentType, format })
  })
}

/** How many files this process has sent to the worker (tests, operators). */
export function filesReadInWorker(): number {
  return nextId - 1
}
