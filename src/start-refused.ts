/** @module A start refused before anything was changed: the data dir in use, the address taken, bad configuration. */

/**
 * Why the process will not start, as one line an operator can act on (`main` prints the message as is,
 * exit 2). Thrown before any data is written, or after what was begun has been undone.
 */
export class StartRefused extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'StartRefused'
  }
}

/** An errno code as the few words a message ends with. */
export function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | null)?.code
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied'
  if (code === 'EROFS') return 'read-only file system'
  if (code === 'ENOTDIR') return 'not a directory'
  if (code === 'ENOSPC') return 'no space left on the device'
  return error instanceof Error ? error.message.split('\n')[0] : String(error)
}
