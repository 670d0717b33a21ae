/**
 * @module Starting a worker thread on a module of src/, the same way whether the service runs built (dist/, .js) or
 * from its TypeScript sources under tsx (tests, benches). A worker does not inherit tsx's module hooks: started on a
 * .ts module, it registers them itself before importing it. Optionally, an export of the module is called once it
 * has loaded (a module that does nothing on import, such as cluster/lease-renewer.ts).
 */

import { Worker } from 'node:worker_threads'

export interface WorkerThreadOptions {
  /** Handed to the thread as `workerData` (a structured clone). */
  readonly workerData?: unknown
  /** The name of an export of the module, called with no arguments once it has loaded. */
  readonly afterLoad?: string
}

/**
 * The URL of a module next to the caller's (`name` without its extension): .ts when the caller runs from its sources,
 * .js when built. `callerUrl` is the caller's import.meta.url.
 */
export function siblingModuleUrl(callerUrl: string, name: string): URL {
  return new URL(`${name}${callerUrl.endsWith('.ts') ? '.ts' : '.js'}`, callerUrl)
}

/**
 * A worker thread running the module at `moduleUrl` (a .js or .ts file). A module that throws while it loads, or an
 * `afterLoad` export that is missing or throws, surfaces as the worker's `error` event, as a thread's uncaught error.
 */
export function startWorkerThread(moduleUrl: URL, options: WorkerThreadOptions = {}): Worker {
  const { workerData, afterLoad } = options
  const typescript = moduleUrl.pathname.endsWith('.ts')
  if (!typescript && afterLoad === undefined) return new Worker(moduleUrl, { workerData })
  const source = JSON.stringify(moduleUrl.href)
  const load = typescript ? `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${source}) })` : `import(${source})`
  const call = afterLoad === undefined ? '' : `.then((module) => module[${JSON.stringify(afterLoad)}]())`
  // An unhandled rejection ends a thread as an uncaught error does (Node's default): the `error` event.
  return new Worker(`${load}${call}`, { eval: true, workerData })
}
