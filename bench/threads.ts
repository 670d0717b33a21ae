/**
 * @module Per-thread CPU of a server process, from /proc/<pid>/task: what each thread used over a run, its CPU per
 * answer and busy fraction, and the threads sorted into the main thread (HTTP), the shards' JavaScript threads and
 * the rest (libuv's pool, LMDB's write threads, V8's helpers). Node names every thread `node`, so a shard's thread
 * is told apart by where it waits when the server is idle: an event loop thread sits in epoll_wait (the main thread
 * and each worker), every other thread on a futex; the workers are the event loop threads started last.
 */
import fs from 'node:fs'
import { measure, type LoadRequest, type LoadResult, type LoadSettings } from './http.ts'

const clockTicksPerS = 100

export type ThreadCpu = Map<string, { name: string; cpuMs: number }>

/** Per thread of a process (/proc/<pid>/task): its name and CPU ms so far (10 ms steps). */
export function threadCpuMs(pid: number): ThreadCpu {
  const threads: ThreadCpu = new Map()
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      threads.set(tid, { name: fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicksPerS })
    }
  } catch {
    // The process (or a thread) ended meanwhile: what was read.
  }
  return threads
}

export interface ThreadUse { readonly name: string; readonly cpuUsPerAnswer: number; readonly busy: number }

const round1 = (value: number) => Math.round(value * 10) / 10
const round2 = (value: number) => Math.round(value * 100) / 100

/** Threads that used at least 1 % of the run: CPU per answer and busy fraction. */
export function threadUse(before: ThreadCpu, after: ThreadCpu, answers: number, wallMs: number): ThreadUse[] {
  const used: ThreadUse[] = []
  for (const [tid, end] of after) {
    const cpuMs = end.cpuMs - (before.get(tid)?.cpuMs ?? 0)
    if (cpuMs < wallMs * 0.01 || answers === 0) continue
    used.push({ name: `${end.name}#${tid}`, cpuUsPerAnswer: round1(cpuMs * 1000 / answers), busy: round2(cpuMs / wallMs) })
  }
  return used.sort((a, b) => b.cpuUsPerAnswer - a.cpuUsPerAnswer)
}

/** A group of threads over one run: CPU per answer (all of them together), busy fraction (of one core), how many. */
export interface ThreadGroup { readonly cpuUsPerAnswer: number; readonly busy: number; readonly threads: number }

export interface ThreadSplit {
  /** The main thread: HTTP, authentication, forwarding (and with SHARDS=1 the shard itself). */
  readonly main: ThreadGroup
  /** Each shard's JavaScript thread (SHARDS > 1), in the order they started. */
  readonly shards: readonly ThreadGroup[]
  /** Every other thread together: libuv's pool, LMDB, V8's collector and compiler helpers. */
  readonly other: ThreadGroup
}

/** x86_64 and arm64 numbers of epoll_wait, epoll_pwait and epoll_pwait2: where an idle event loop waits. */
const epollWaitSyscalls = new Set(process.arch === 'arm64' ? ['22', '441'] : ['232', '281', '441'])

/**
 * The shards' JavaScript threads of an idle server with SHARDS=shards (none for 1): its event loop threads other than
 * the main one, the `shards` started last (the highest ids). Read while the server is idle: a busy thread is not in
 * epoll_wait. Falls back to none when /proc does not tell.
 */
export function shardThreadIds(pid: number, shards: number): string[] {
  if (shards <= 1) return []
  // Looked at several times over 200 ms: a worker briefly out of epoll_wait (a timer's work) is seen on another look.
  const loops = new Set<string>()
  for (let look = 0; look < 20; look++) {
    for (const tid of eventLoopThreads(pid)) loops.add(tid)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)
  }
  return loops.size < shards ? [] : [...loops].sort((a, b) => Number(a) - Number(b)).slice(-shards)
}

/** The threads other than the main one waiting in epoll_wait now, by id. */
function eventLoopThreads(pid: number): string[] {
  const loops: string[] = []
  try {
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      if (tid === String(pid)) continue
      const syscall = fs.readFileSync(`/proc/${pid}/task/${tid}/syscall`, 'utf8').split(' ')[0]
      if (epollWaitSyscalls.has(syscall)) loops.push(tid)
    }
  } catch {
    return []
  }
  return loops
}

/** Every thread's CPU over the run sorted into main, shard (shardTids, from shardThreadIds) and other threads. */
export function splitThreads(pid: number, before: ThreadCpu, after: ThreadCpu, shardTids: readonly string[], answers: number, wallMs: number): ThreadSplit {
  const used = [...after].map(([tid, end]) => ({ tid, cpuMs: end.cpuMs - (before.get(tid)?.cpuMs ?? 0) }))
  const group = (cpuMs: number, threads: number): ThreadGroup => ({
    cpuUsPerAnswer: answers === 0 ? 0 : round1(cpuMs * 1000 / answers), busy: round2(cpuMs / wallMs), threads,
  })
  const main = used.find((thread) => thread.tid === String(pid))
  const shardThreads = used.filter((thread) => shardTids.includes(thread.tid)).sort((a, b) => Number(a.tid) - Number(b.tid))
  const others = used.filter((thread) => thread.tid !== String(pid) && !shardTids.includes(thread.tid))
  return {
    main: group(main?.cpuMs ?? 0, 1),
    shards: shardThreads.map((thread) => group(thread.cpuMs, 1)),
    other: group(others.reduce((sum, thread) => sum + thread.cpuMs, 0), others.length),
  }
}

/** One measured run with its threads: the load's result, its wall time, and the threads' CPU split both ways. */
export interface ThreadedRun {
  readonly result: LoadResult
  readonly wallMs: number
  /** Main, each shard's thread, the rest (splitThreads). */
  readonly split: ThreadSplit
  /** Every thread that used at least 1 % of the run (threadUse). */
  readonly used: readonly ThreadUse[]
}

/**
 * The block every bench of the server's threads runs: the warm-up (settings.warmupS) apart, then the shards' threads
 * found while the server is idle, the threads' CPU read, the measured run (settings.durationS), read again and split
 * by thread. The threads' figures cover the measured run only, as the process's CPU per answer does.
 */
export async function measureWithThreads(port: number, pid: number, shards: number, settings: LoadSettings, next: () => LoadRequest, cpuMs: () => number | null): Promise<ThreadedRun> {
  if (settings.warmupS > 0) await measure(port, { ...settings, durationS: settings.warmupS, warmupS: 0 }, next)
  const shardTids = shardThreadIds(pid, shards)
  const before = threadCpuMs(pid)
  const startedMs = Date.now()
  const result = await measure(port, { ...settings, warmupS: 0 }, next, cpuMs)
  const wallMs = Date.now() - startedMs
  const after = threadCpuMs(pid)
  return { result, wallMs, split: splitThreads(pid, before, after, shardTids, result.total, wallMs), used: threadUse(before, after, result.total, wallMs) }
}
