/**
 * @module Test support: what tests read or do inside the service's runtimes, for any number of shards
 * (src/shard/probe.ts runs these exports on the thread that holds the runtime). The exports taking a Runtime
 * are the probes; the async helpers taking a Service call them.
 */

import type { Runtime } from '../../src/actor/runtime.ts'
import type { SystemCommand } from '../../src/ledger/system.ts'
import type { Service } from '../../src/service.ts'
import { systemStateText, workspaceStateText } from './state-fingerprint.ts'

const module = import.meta.url

/** Probe: a snapshot of every workspace that moved and of the system state, now; how many were written. */
export function snapshotNowProbe(runtime: Runtime): number {
  return runtime.snapshotDue(true)
}

/** Probe: every workspace counted as just snapshotted, so the stop writes none (the next start replays the log after the last snapshot). */
export function skipStopSnapshotsProbe(runtime: Runtime): void {
  for (const actor of runtime.actors.values()) actor.commandsSinceSnapshot = 0
}

export function workspaceStateProbe(runtime: Runtime, workspaceId: string): string {
  return workspaceStateText(runtime, workspaceId)
}

export function systemStateProbe(runtime: Runtime): string {
  return systemStateText(runtime)
}

export function lastSeqProbe(runtime: Runtime): number {
  return runtime.log.lastSeq
}

/** Probe: the workspaces this runtime holds an actor for, sorted. */
export function workspacesHeldProbe(runtime: Runtime): string[] {
  return [...runtime.actors.keys()].sort()
}

/** Probe: a system command applied as given, past the routes' checks (to write what an older version logged); resolves once durable. */
export function submitSystemProbe(runtime: Runtime, command: SystemCommand): Promise<boolean> {
  const submitted = runtime.submitSystem(command)
  return new Promise((resolve, reject) => submitted.whenDurable((error) => (error === null ? resolve(submitted.outcome.ok) : reject(error))))
}

/** Snapshots written now on every runtime (the registry's system state among them with several shards). */
export async function snapshotNow(service: Service): Promise<number> {
  const written = await service.probe({ module, name: 'snapshotNowProbe', args: [] }) as number[]
  return written.reduce((sum, each) => sum + each, 0)
}

export async function skipStopSnapshots(service: Service): Promise<void> {
  await service.probe({ module, name: 'skipStopSnapshotsProbe', args: [] })
}

/** The whole state of one workspace (test/support/state-fingerprint.ts), read on the shard that holds it. */
export async function workspaceState(service: Service, workspaceId: string): Promise<string> {
  return (await service.probe({ module, name: 'workspaceStateProbe', args: [workspaceId] }, workspaceId))[0] as string
}

/** The system state (workspaces, keys, hashes, tags) as the runtime that holds it has it. */
export async function systemState(service: Service): Promise<string> {
  return (await service.probe({ module, name: 'systemStateProbe', args: [] }))[0] as string
}

/** The last seq of the log that holds the workspace's records. */
export async function workspaceLastSeq(service: Service, workspaceId: string): Promise<number> {
  return (await service.probe({ module, name: 'lastSeqProbe', args: [] }, workspaceId))[0] as number
}

/** A system command applied by the runtime holding the system state, past the routes' checks; whether it was accepted. */
export async function submitSystem(service: Service, command: SystemCommand): Promise<boolean> {
  return (await service.probe({ module, name: 'submitSystemProbe', args: [command] }))[0] as boolean
}

export function keyRecordsProbe(runtime: Runtime): unknown[] {
  return [...runtime.system.keys.values()]
}

export function timeZoneProbe(runtime: Runtime, workspaceId: string): string | null {
  return runtime.system.workspaces.get(workspaceId)?.timeZone ?? null
}

/** The key records as the system state holds them (the registry's, with several shards). */
export async function keyRecords(service: Service): Promise<{ readonly id: string; readonly secretHash: string }[]> {
  return (await service.probe({ module, name: 'keyRecordsProbe', args: [] }))[0] as { id: string; secretHash: string }[]
}

/** A workspace's time zone as the system state stores it (null: no such workspace). */
export async function storedTimeZone(service: Service, workspaceId: string): Promise<string | null> {
  return (await service.probe({ module, name: 'timeZoneProbe', args: [workspaceId] }))[0] as string | null
}

export function logStateProbe(runtime: Runtime): string {
  const log = runtime.log
  return `lastSeq ${log.lastSeq} durableSeq ${log.durableSeq} pending ${log.pendingCount} failure ${log.failure?.message ?? null}`
}

/** Each log's ends, pending records and failure, one line per runtime (for progress reports of long tests). */
export async function logStates(service: Service): Promise<string> {
  return (await service.probe({ module, name: 'logStateProbe', args: [] }) as string[]).join('; ')
}
