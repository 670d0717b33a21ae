/** @module The logger's periodic flush (src/logger.ts): buffered lines go out on a timer, and stdout is never fsynced for it. */

import fs from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { createLogger } from '../src/logger.ts'

t.test('the periodic flush writes out what is buffered without an fsync of stdout', async (t) => {
  // sonic-boom calls fs.fsync on the module object node:fs shares with CommonJS: counted here for stdout.
  const original = fs.fsync
  const originalWrite = fs.write
  let stdoutFsyncs = 0
  let stdoutWrites = 0
  fs.fsync = ((fd: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    if (fd === 1) stdoutFsyncs++
    return original(fd, callback)
  }) as typeof fs.fsync
  fs.write = ((fd: number, ...rest: unknown[]) => {
    if (fd === 1) stdoutWrites++
    return (originalWrite as (...args: unknown[]) => void)(fd, ...rest)
  }) as typeof fs.write
  t.teardown(() => {
    fs.fsync = original
    fs.write = originalWrite
  })
  const service = createLogger({ level: 'warn', bufferBytesMax: 1 << 20, flushWaitMs: 1_000, onLineDropped: () => {} })
  t.teardown(() => service.close())
  // Below minLength: the line waits in the buffer for the timer (every 200 ms), not for more lines.
  service.logger.warn({ test: 'logger.test.ts' }, 'a line the flush timer writes out')
  // Three ticks of the timer, bounded.
  await sleep(700)
  t.ok(stdoutWrites >= 1, 'the buffered line was written out')
  t.equal(stdoutFsyncs, 0, 'no fsync of stdout: a log line is not a durable record, and the fsync took a thread of the pool the log commits use')
})
