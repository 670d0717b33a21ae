/** @module The structured logger: pino JSON lines on stdout through an asynchronous, bounded buffer. */

import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import { pino, type DestinationStream, type Logger } from 'pino'
import type { LogLevel } from './config.js'

export type { Logger }

export interface ServiceLogger {
  readonly logger: Logger
  /** Writes out what is buffered (waiting at most flushWaitMs) and detaches from stdout, which stays open. */
  close(): Promise<void>
}

export interface LoggerOptions {
  readonly level: LogLevel
  readonly bufferBytesMax: number
  readonly flushWaitMs: number
  /** Called for each line dropped because stdout fell behind by more than bufferBytesMax. */
  readonly onLineDropped: () => void
  /** Where lines go instead of stdout (tests). */
  readonly destination?: DestinationStream
}

/**
 * We never pass these to the logger; redaction is the second line of defence should a later change
 * log a request object. Bodies are never logged at all.
 */
const redactedPaths = ['authorization', 'headers.authorization', 'secret', 'token', 'admin_token', 'api_key', 'body', 'headers.cookie']

let isoTimeMs = -1
let isoTimeText = ''

/** pino's isoTime, formatted once per millisecond: under load many lines share one. */
function isoTimeOncePerMs(): string {
  const nowMs = Date.now()
  if (nowMs !== isoTimeMs) {
    isoTimeMs = nowMs
    isoTimeText = `,"time":"${new Date(nowMs).toISOString()}"`
  }
  return isoTimeText
}

function loggerOptions(level: LogLevel) {
  return {
    level,
    base: { service: 'trueup', pid: process.pid },
    timestamp: isoTimeOncePerMs,
    messageKey: 'msg',
    formatters: { level: (label: string) => ({ level: label }) },
    redact: { paths: redactedPaths, censor: '[redacted]' },
  }
}

/** Log lines are written in batches of about this many bytes, and at least every flushEveryMs. */
const linesBatchBytes = 8192
const flushEveryMs = 200

export function createLogger(options: LoggerOptions): ServiceLogger {
  if (options.destination !== undefined) return { logger: pino(loggerOptions(options.level), options.destination), close: async () => {} }
  // Silent: no stream on stdout at all, so nothing is buffered, registered for exit, or left to close.
  if (options.level === 'silent') return { logger: pino(loggerOptions('silent'), { write: () => {} }), close: async () => {} }
  // sync: false writes from a buffer when stdout can take it: a slow reader never blocks the event loop.
  // maxLength bounds that buffer; past it sonic-boom drops the line and says so ('drop'). minLength
  // gathers lines into one write of a few KiB under load instead of a syscall per request line;
  // the timer writes out what a quiet moment leaves behind, so a line waits at most flushEveryMs.
  const stream = pino.destination({ dest: 1, sync: false, minLength: Math.min(linesBatchBytes, options.bufferBytesMax >> 1), maxLength: options.bufferBytesMax })
  stream.on('drop', options.onLineDropped)
  // Without a callback: with one, sonic-boom also fsyncs stdout on every tick, five times a second, on a
  // thread of the pool that the log's commits use. A log line is not a durable record; the command log is.
  const flusher = setInterval(() => stream.flush(), flushEveryMs)
  flusher.unref()
  return {
    logger: pino(loggerOptions(options.level), stream),
    close: async () => {
      clearInterval(flusher)
      const closed = once(stream, 'close')
      stream.end()
      await Promise.race([closed, sleep(options.flushWaitMs, undefined, { ref: false })])
    },
  }
}
