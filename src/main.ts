/** @module The trueup process: configuration from the environment, the service, signals. No logic here. */

import { loadConfig } from './config.js'
import { startService } from './service.js'

const config = loadConfig()
const print = (line: string) => process.stdout.write(`${line}\n`)

const service = await startService(config, {
  print,
  clock: () => Date.now(),
  onLogFailure: (error) => {
    process.stderr.write(`trueup: the log could not be written (${error.message}); exiting so that start-up recovers from the log\n`)
    setImmediate(() => process.exit(1))
  },
})
print(`Replayed ${service.replay.records} log records (${service.replay.snapshots} snapshots) in ${service.replay.durationMs} ms.`)
print(`trueup listening on http://${config.host}:${service.port} (data in ${config.dataDir})`)

let stopping = false
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return
    stopping = true
    service.stop().then(() => process.exit(0), (error: unknown) => {
      process.stderr.write(`trueup: shutdown failed: ${String(error)}\n`)
      process.exit(1)
    })
  })
}
