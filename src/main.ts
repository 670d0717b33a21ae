/** @module The trueup process: the command line, configuration from the environment, the service, signals. No logic here. */

import { readCommandLine } from './cli.js'
import { loadConfig, type Config } from './config.js'
import { StoreDamaged } from './log/damage.js'
import { startService, type Service } from './service.js'
import { StartRefused } from './start-refused.js'

/**
 * Exit codes a supervisor can act on: 1 the log failed while running (restart recovers); 2 the start was
 * refused (bad configuration, the data dir damaged, in use or unusable, the address taken: restarting as
 * is will not help).
 */
const exitLogFailed = 1
const exitRefused = 2

const print = (line: string) => process.stdout.write(`${line}\n`)
const warn = (line: string) => process.stderr.write(`${line}\n`)

let logFailed = false

/** The environment as a Config, or one line on stderr naming the variable and exit 2: no stack trace for a typo. */
function configOrExit(): Config {
  try {
    return loadConfig()
  } catch (error) {
    warn(`invalid configuration: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`)
    process.exit(exitRefused)
  }
}

async function startOrExit(config: Config): Promise<Service> {
  // Once a commit failed, lmdb-js rejects every write promise of that transaction too ("Commit failed (see
  // commitError for details)"), some of which nobody awaits. That is the failure already reported: the
  // process is on its way out with exitLogFailed, and dying of an unhandled rejection instead raced with
  // LMDB's write thread in the teardown (seen: glibc aborting with "corrupted size vs. prev_size").
  process.on('unhandledRejection', (reason) => {
    if (logFailed && reason instanceof Error && 'commitError' in reason) return
    warn(`trueup: unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}`)
    process.exit(1)
  })
  try {
    return await startService(config, {
      print,
      warn,
      clock: () => Date.now(),
      onLogFailure: (error) => {
        // Called once per waiting reply; say it once.
        if (logFailed) return
        logFailed = true
        warn(`trueup: the log could not be written (${error.message}); exiting so that start-up recovers from the log`)
        setImmediate(() => process.exit(exitLogFailed))
      },
    })
  } catch (error) {
    // Said as is: the message is the one line the operator needs (docs/API.md, "Running it").
    if (error instanceof StartRefused) warn(error.message)
    else if (error instanceof StoreDamaged) warn(`trueup: refusing to start: ${error.message}`)
    else throw error
    process.exit(exitRefused)
  }
}

async function serve(): Promise<void> {
  const config = configOrExit()
  const service = await startOrExit(config)
  print(`Replayed ${service.replay.records} log records (${service.replay.snapshots} snapshots, ${service.replay.recordsSkipped} older records not needed) in ${service.replay.durationMs} ms.`)
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
}

// --help and --version read no configuration and touch no data dir.
const commandLine = readCommandLine(process.argv.slice(2))
if (commandLine.run) await serve()
else {
  process.stdout.write(commandLine.stdout)
  process.stderr.write(commandLine.stderr)
  process.exitCode = commandLine.exitCode
}
