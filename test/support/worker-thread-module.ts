/**
 * @module A worker thread's module for test/worker-thread.test.ts, run as it is (under tsx) and compiled to .js: it
 * posts the workerData it got once loaded, and again when its `afterLoad` export is called; it throws while it loads
 * when its workerData says so.
 */

import { parentPort, workerData } from 'node:worker_threads'

interface FixtureData {
  readonly label: string
  readonly throwAtLoad: boolean
}

const data: FixtureData = workerData as FixtureData
if (data.throwAtLoad) throw new Error(`thrown while loading (${data.label})`)
parentPort!.postMessage({ kind: 'loaded', workerData: data })

export function afterLoad(): void {
  parentPort!.postMessage({ kind: 'afterLoad', label: data.label })
}
