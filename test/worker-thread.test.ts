/**
 * startWorkerThread on a real small module (test/support/worker-thread-module.ts), both ways the service starts its
 * threads: from a .ts source under tsx (tests, benches) and from a .js file (the build; here the same module compiled
 * by esbuild into a temporary directory of type module, as dist/ is).
 */
import { transformSync } from 'esbuild'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import { siblingModuleUrl, startWorkerThread, type WorkerThreadOptions } from '../src/worker-thread.js'

/** A worker's module loads tsx first when it is TypeScript: seconds on a busy machine, never this long. */
const workerEndMsMax = 60_000

const tsModule = new URL('./support/worker-thread-module.ts', import.meta.url)

function jsModule(t: Test): URL {
  const dir = t.testdir({ 'package.json': JSON.stringify({ type: 'module' }) })
  const code = transformSync(fs.readFileSync(tsModule, 'utf8'), { loader: 'ts', format: 'esm' }).code
  const file = path.join(dir, 'worker-thread-module.js')
  fs.writeFileSync(file, code)
  return pathToFileURL(file)
}

interface Ended {
  readonly messages: readonly unknown[]
  readonly errors: readonly Error[]
  readonly exitCode: number
}

/** Runs the worker to its end (it ends by itself: nothing keeps its event loop alive): what it posted, its errors, its code. */
function runToEnd(moduleUrl: URL, options: WorkerThreadOptions): Promise<Ended> {
  const worker = startWorkerThread(moduleUrl, options)
  const messages: unknown[] = []
  const errors: Error[] = []
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { void worker.terminate(); reject(new Error(`the worker did not end within ${workerEndMsMax} ms`)) }, workerEndMsMax)
    worker.on('message', (message) => messages.push(message))
    worker.on('error', (error) => errors.push(error))
    worker.on('exit', (exitCode) => { clearTimeout(timer); resolve({ messages, errors, exitCode }) })
  })
}

const ways: readonly { readonly name: string; readonly url: (t: Test) => URL }[] = [
  { name: 'a .ts source under tsx', url: () => tsModule },
  { name: 'a .js file', url: jsModule },
]

for (const way of ways) {
  t.test(`${way.name}: workerData reaches the module`, async (t) => {
    const workerData = { label: `data ${way.name}`, throwAtLoad: false }
    const ended = await runToEnd(way.url(t), { workerData })
    t.same(ended.errors, [])
    t.equal(ended.exitCode, 0)
    t.same(ended.messages, [{ kind: 'loaded', workerData }])
  })

  t.test(`${way.name}: the afterLoad export runs once the module has loaded`, async (t) => {
    const ended = await runToEnd(way.url(t), { workerData: { label: 'after', throwAtLoad: false }, afterLoad: 'afterLoad' })
    t.same(ended.errors, [])
    t.same(ended.messages, [{ kind: 'loaded', workerData: { label: 'after', throwAtLoad: false } }, { kind: 'afterLoad', label: 'after' }])
  })

  for (const afterLoad of [undefined, 'afterLoad']) {
    t.test(`${way.name}: a module that throws while loading is an error event (afterLoad ${afterLoad ?? 'none'})`, async (t) => {
      const ended = await runToEnd(way.url(t), { workerData: { label: 'thrower', throwAtLoad: true }, afterLoad })
      t.equal(ended.errors.length, 1)
      t.match(ended.errors[0]?.message, 'thrown while loading (thrower)')
      t.not(ended.exitCode, 0)
      t.same(ended.messages, [], 'neither posted nor called afterLoad')
    })
  }

  t.test(`${way.name}: an afterLoad the module does not export is an error event`, async (t) => {
    const ended = await runToEnd(way.url(t), { workerData: { label: 'missing', throwAtLoad: false }, afterLoad: 'noSuchExport' })
    t.equal(ended.errors.length, 1)
    t.not(ended.exitCode, 0)
  })
}

t.test('a sibling module has the caller\'s extension: .ts from the sources, .js built', async (t) => {
  t.equal(siblingModuleUrl('file:///app/src/shard/worker-shard.ts', './shard-worker').href, 'file:///app/src/shard/shard-worker.ts')
  t.equal(siblingModuleUrl('file:///app/dist/shard/worker-shard.js', './shard-worker').href, 'file:///app/dist/shard/shard-worker.js')
  t.equal(siblingModuleUrl(import.meta.url, './support/worker-thread-module').href, tsModule.href)
})
