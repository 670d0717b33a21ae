/** @module The command line of `trueup`: --help and --version, answered before any configuration is read or data dir touched. */

import { version } from './version.js'

/** The environment variables, as README.md's configuration table lists them (test/cli.test.ts keeps the two alike). */
const variables: readonly (readonly [name: string, defaultText: string, meaning: string])[] = [
  ['HOST', '127.0.0.1', 'listen address'],
  ['PORT', '8080', 'listen port (0: any free port)'],
  ['DATA_DIR', './data', 'the LMDB log, snapshots and the admin token; one process at a time (DATA_DIR/trueup.lock)'],
  ['ADMIN_TOKEN', 'generated', 'bearer token of the admin API (/admin/...)'],
  ['GROUP_COMMIT_RECORDS_MAX', '8192', 'log records in one transaction at most'],
  ['PENDING_RECORDS_MAX', '65536', 'unflushed records at most; past it, writes get 503'],
  ['SNAPSHOT_COMMANDS_INTERVAL', '100000', 'a workspace is snapshotted after this many commands'],
  ['EDGE_THREADS', '0', 'with SHARDS above 1, 1 serves HTTP and WebSockets on the shards\' threads (opt-in: docs/API.md, Shards)'],
  ['SHARDS', 'cores', 'workspaces placed on this many shards (worker threads) by a hash of their id; unset: the number the data dir was written with, else the cores'],
  ['LOG_RETENTION_COMMANDS', '2 x SNAPSHOT_COMMANDS_INTERVAL', 'the log keeps at least its last this many records'],
  ['LOG_RETENTION_BYTES', 'unset', 'the log keeps at least its newest records that add up to this many bytes'],
  ['LOG_RETENTION_BATCH_RECORDS_MAX', '2048', 'log records deleted per background transaction at most'],
  ['SHUTDOWN_GRACE_MS', '10000', 'how long SIGTERM waits, at most, for in-flight requests and open connections'],
  ['LOG_LEVEL', 'info', 'JSON request logs on stdout: fatal, error, warn, info, debug, trace or silent'],
  ['LOG_SLOW_REQUEST_MS', '1000', 'a successful request this slow is logged at info; quicker ones at debug'],
  ['METRICS_TOKEN', 'unset', 'when set, GET /metrics needs Authorization: Bearer <METRICS_TOKEN>'],
  ['STREAM_AUTH_TIMEOUT_MS', '10000', 'a WebSocket at /v2/stream not authenticated by then is closed (4401)'],
  ['STREAM_KEY_BUFFER_BYTES_MAX', '67108864 (64 MiB)', 'unread bytes in the send buffers of one API key\'s WebSockets together; past it, its socket holding the most is closed'],
  ['STREAM_PROCESS_BUFFER_BYTES_MAX', '536870912 (512 MiB)', 'the same over every WebSocket of the process'],
  ['WEBHOOK_TIMEOUT_MS', '10000', 'one webhook delivery attempt, at most'],
  ['WEBHOOK_BACKOFF_BASE_MS', '1000', 'webhook retries: full jitter up to base x 2^(n-1),'],
  ['WEBHOOK_BACKOFF_CAP_MS', '3600000', 'capped at this'],
  ['WEBHOOK_RETRY_WINDOW_MS', '86400000', 'an event is retried until this long after its command, then marked failed'],
  ['WEBHOOK_CONCURRENCY_MAX', '16', 'webhook deliveries in flight at once'],
  ['CLUSTER_DATABASE_URL', 'unset', 'cluster mode: postgres:// URL of the replicated log; each group commit is committed there before any answer (with NODE_ID and NODE_URL, all three or none)'],
  ['NODE_ID', 'unset', 'cluster mode: this node\'s name in the placement table (unique, stable across restarts)'],
  ['NODE_URL', 'unset', 'cluster mode: where other nodes reach this one'],
  ['NODE_SHARDS', 'unset (every shard)', 'cluster mode: the shards this node claims at start, e.g. 0,2 (the registry is SHARDS); a standby for the others'],
]

/** The names --help lists, for the test that compares them with README.md and the configuration. */
export const helpVariableNames: readonly string[] = variables.map(([name]) => name)

export function helpText(): string {
  const width = Math.max(...variables.map(([name]) => name.length))
  return [
    `trueup ${version}: a double-entry ledger service with reconciliation windows.`,
    '',
    'Usage: trueup [--help | --version]',
    '  Serves HTTP on HOST:PORT with its data in DATA_DIR; SIGTERM or SIGINT stops it cleanly (exit 0).',
    '  Exit codes: 0 stopped cleanly; 1 the log failed while running (a restart recovers);',
    '  2 the start was refused (bad configuration, DATA_DIR in use, unusable or damaged, the address in use).',
    '',
    'Configuration, from the environment (default in brackets):',
    ...variables.map(([name, defaultText, meaning]) => `  ${name.padEnd(width)}  ${meaning} [${defaultText}]`),
    '',
  ].join('\n')
}

/** What the arguments ask: run the service, or print something and exit with the code given. */
export type CommandLine = { readonly run: true } | { readonly run: false; readonly stdout: string; readonly stderr: string; readonly exitCode: number }

export function readCommandLine(args: readonly string[]): CommandLine {
  if (args.length === 0) return { run: true }
  if (args.length === 1 && (args[0] === '--help' || args[0] === '-h')) return { run: false, stdout: helpText(), stderr: '', exitCode: 0 }
  if (args.length === 1 && (args[0] === '--version' || args[0] === '-v')) return { run: false, stdout: `${version}\n`, stderr: '', exitCode: 0 }
  return { run: false, stdout: '', stderr: `unknown argument ${JSON.stringify(args[0])}: trueup takes --help or --version; everything else is set in the environment (trueup --help)\n`, exitCode: 2 }
}
