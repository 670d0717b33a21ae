/**
 * @module Simulation: a seeded, deterministic, in-process run of many clients over several workspaces,
 * through the actor and a real LMDB command log, with crashes struck into group commits. After every
 * reply the auditor's prediction is compared with it; a sampled share of rejections is checked to leave
 * the state byte-for-byte unchanged; at a fixed interval and after every restart, live state, state
 * replayed from the whole log and state restored from the latest snapshots must be identical, and every
 * window and balance must read as the auditor has them. Every window is watched as a WebSocket subscriber
 * watches it; after each batch its last live update must be the window as it is. A failure names its seed and step.
 */

import assert from 'node:assert/strict'
import { canonicalJson } from '../../src/api/idempotency.ts'
import type { Rejection } from '../../src/errors.ts'
import { balanceAt } from '../../src/ledger/balances.ts'
import { getWindow } from '../../src/ledger/windows.ts'
import { listApprovals } from '../../src/ledger/approvals.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { CrashKind, Reply } from './adapter.ts'
import { SimProcess } from './adapter-shards.ts'
import { checkWindowBody, idempotencyTtlMs, WorkspaceModel, type Expectation, type Request } from './auditor.ts'
import { approvalsListProblem, approvalStates, isGated } from './auditor-approvals.ts'
import { isRead, predict, type ReadRequest, type SimRequest } from './auditor-bulk.ts'
import { Prng } from './prng.ts'
import { statesDifference, workspaceText } from './state-views.ts'
import { altered, nextRequest, type Client } from './workload.ts'

export interface SimulationOptions {
  readonly seed: number
  readonly steps: number
  /** An empty directory for the LMDB store. */
  readonly dir: string
  /** How many shards hold the workspaces (adapter-shards.ts); 1, the default: the single log. */
  readonly shards?: number
  /** A full triple check every this many steps (and after every restart). */
  readonly checkEverySteps?: number
  /** Chance that a batch ends in a crash. */
  readonly crashChance?: number
  /** Share of rejections whose state is compared before and after (a full serialization each). */
  readonly rejectionCheckChance?: number
  readonly snapshotCommandsInterval?: number
  readonly progress?: (line: string) => void
}

export interface SimulationReport {
  readonly seed: number
  readonly shards: number
  /** How many workspaces each shard held at the end. */
  readonly workspacesPerShard: readonly number[]
  readonly steps: number
  readonly batches: number
  /** Per stage, the shards' logs a crash struck at it (a crash of several shards counts once per shard it struck). */
  readonly crashes: Readonly<Record<CrashKind, number>>
  /** Crashes of the whole process that lost one shard's last commit and kept another's. */
  readonly mixedCrashes: number
  /** Workspaces a restart gave to their shard (the registry had them, a crash struck their shard's creation). */
  readonly workspacesRepaired: number
  readonly tripleChecks: number
  readonly snapshotRounds: number
  readonly accepted: number
  readonly replayed: number
  readonly rejections: Readonly<Record<string, number>>
  readonly rejectionsChecked: number
  readonly retriesAfterCrash: number
  /** Per request type (reads included), how many were accepted and refused: the run's coverage of the commands. */
  readonly requests: Readonly<Record<string, { readonly accepted: number; readonly refused: number }>>
  /** Matches proposed by GET proposals and then attached by an accepted batch of them. */
  readonly proposalsAccepted: number
  /** Matches the auto-match made (checked against the rules, then committed to the model). */
  readonly autoMatched: number
  /** Approves whose action was refused as of the decision: the error answered, the approval kept as failed. */
  readonly approvalsFailed: number
  /** Batches after which every window's last live update was compared with the window. */
  readonly liveUpdateChecks: number
  /** Windows by final state, and how many ever reached balanced: the run's coverage of the state table. */
  readonly windowStates: Readonly<Record<string, number>>
}

/** A failure of the system under test (or of the model): which seed, at which step, and what. */
export class SimulationFailure extends Error {
  constructor(readonly seed: number, readonly step: number, detail: string) {
    super(`simulation seed ${seed} failed at step ${step}: ${detail}\n  reproduce: npm run simulate -- --seed ${seed} --steps ${step + 1}`)
  }
}

/** What a failed approve stores for its key: not an answer body but the error code a retry must answer again. */
const failedStatus = -1

/** The name a request counts under in the coverage: a decision by its kind, a held request as `approval.request <its action>`. */
function coverageName(request: SimRequest, outcome: Reply['outcome']): string {
  if (request.type === 'approval.decide') return `approval.${request.decision}`
  if (outcome.ok && outcome.status === 202 && isGated(request)) return `approval.request ${(outcome.body as { approval: { action: string } }).approval.action}`
  return request.type
}

/**
 * An answer as the client reads it: a command that is logged and yet answers an error (an approve whose action
 * fails now, its approval kept as failed) comes back as an accepted outcome with an error status; the client sees the error.
 */
function asTheClientReadsIt(reply: Reply): Reply {
  const outcome = reply.outcome
  if (reply.replayed || !outcome.ok || outcome.status < 400) return reply
  const error = (outcome.body as { error: { code: Rejection['code']; message: string } }).error
  return { outcome: { ok: false, code: error.code, message: error.message }, replayed: false }
}

/** With several shards, workspaces are added while clients write, up to this many. */
const workspacesMax = 6
const timeZones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Tokyo'] as const
const startMs = Date.parse('2026-06-01T08:00:00.000Z')

interface Sent {
  readonly client: Client
  readonly request: SimRequest
  readonly key: string | undefined
}

export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const simulation = new Simulation(options)
  try {
    return await simulation.run()
  } catch (error) {
    if (error instanceof SimulationFailure) throw error
    throw new SimulationFailure(options.seed, simulation.step, error instanceof Error ? (error.stack ?? error.message) : String(error))
  } finally {
    await simulation.close()
  }
}

class Simulation {
  readonly #options: Required<Omit<SimulationOptions, 'progress'>> & Pick<SimulationOptions, 'progress'>
  readonly #prng: Prng
  #nowMs = startMs
  #node: SimProcess | null = null
  #models = new Map<string, WorkspaceModel>()
  readonly #clients: Client[] = []
  step = 0
  #batches = 0
  #lastCheckStep = 0
  readonly #crashes: Record<CrashKind, number> = { transaction: 0, flush: 0 }
  #mixedCrashes = 0
  #workspacesRepaired = 0
  #tripleChecks = 0
  #snapshotRounds = 0
  #accepted = 0
  #replayed = 0
  readonly #rejections: Record<string, number> = {}
  #rejectionsChecked = 0
  #retriesAfterCrash = 0
  readonly #requests: Record<string, { accepted: number; refused: number }> = {}
  #proposalsAccepted = 0
  #autoMatched = 0
  #liveUpdateChecks = 0
  #approvalsFailed = 0

  constructor(options: SimulationOptions) {
    this.#options = { shards: 1, checkEverySteps: 500, crashChance: 0.02, rejectionCheckChance: 0.1, snapshotCommandsInterval: 40, ...options }
    this.#prng = new Prng(options.seed)
  }

  get #running(): SimProcess {
    assert.ok(this.#node !== null)
    return this.#node
  }

  async run(): Promise<SimulationReport> {
    this.#node = this.#open()
    await this.#setup()
    while (this.step < this.#options.steps) {
      const size = Math.min(this.#prng.int(1, 6), this.#options.steps - this.step)
      if (this.#prng.chance(this.#options.crashChance)) await this.#crashingBatch(size)
      else await this.#batch(size)
      this.#batches++
      // Short-circuited for one shard, so its runs draw from the seed as before.
      if (this.#options.shards > 1 && this.#models.size < workspacesMax && this.#prng.chance(0.02)) await this.#addWorkspace()
      if (this.#prng.chance(0.005)) await this.#changeTimeZone()
      if (this.#prng.chance(0.005)) await this.#rotateKey()
      if (this.#prng.chance(0.02)) await this.#changeApprovals()
      if (this.#prng.chance(0.1)) await this.#snapshot()
      if (this.step - this.#lastCheckStep >= this.#options.checkEverySteps) this.#tripleCheck('interval')
    }
    await this.#running.durable()
    this.#tripleCheck('end')
    return this.#report()
  }

  async close(): Promise<void> {
    const node = this.#node
    this.#node = null
    if (node !== null) await node.close().catch(() => undefined)
  }

  /** Workspaces (one per time zone, three or four), keys and clients (#addClients). */
  async #setup(): Promise<void> {
    const count = this.#prng.int(3, 4)
    for (let index = 0; index < count; index++) {
      const command = this.#createCommand(index, timeZones[index])
      this.#system(command)
      this.#addClients(command.id, command.time_zone)
    }
    await this.#running.durable()
  }

  #createCommand(index: number, timeZone: string): Extract<Parameters<SimProcess['submitSystem']>[0], { type: 'workspace.create' }> {
    return { type: 'workspace.create', at_ms: this.#nowMs, id: `ws${index}`, time_zone: timeZone, limits: { writes_per_minute: 600, reads_per_minute: 3000 }, tag: `t${index}x` }
  }

  /**
   * Several shards: an admin creates another workspace while clients write. Half the time the process crashes
   * between the registry's commit and its shard's (the shard's struck at the transaction): the restart must give
   * the shard the workspace the registry has, as ShardSet.open does.
   */
  async #addWorkspace(): Promise<void> {
    const command = this.#createCommand(this.#models.size, this.#prng.pick(timeZones))
    if (this.#prng.chance(0.5)) {
      await this.#running.createCrashing(command)
      this.#node = this.#open()
      this.#workspacesRepaired += this.#running.repaired.length
      await this.#running.durable()
      this.#tripleCheck(`restart after a crash between the registry's and shard ${this.#running.shardOf(command.id)}'s creation of ${command.id}`)
    } else {
      this.#system(command)
    }
    this.#addClients(command.id, command.time_zone)
    await this.#running.durable()
    this.#running.watchWindows()
  }

  /** The workspace's model, keys and clients: two that see everything, one that sees assets and income. */
  #addClients(id: string, timeZone: string): void {
    this.#models.set(id, new WorkspaceModel(id, timeZone))
    const visibilities: (readonly string[] | null)[] = [null, null, ['assets:*', 'income:*']]
    visibilities.forEach((visibility, number) => {
      const keyId = `key_${id}_${number}`
      this.#system({ type: 'key.create', at_ms: this.#nowMs, id: keyId, workspace: id, scopes: ['accounts:write', 'entries:write', 'recon:write', 'recon:approve'], accounts: visibility, name: null, secret_hash: `hash_${keyId}` })
      this.#clients.push({ name: `${id}/${number}`, workspace: id, keyId, visibility, sent: [], keysIssued: 0 })
    })
  }

  #system(command: Parameters<SimProcess['submitSystem']>[0]): void {
    const outcome = this.#running.submitSystem(command)
    if (!outcome.ok) throw new SimulationFailure(this.#options.seed, this.step, `setup ${command.type} refused: ${outcome.code}`)
  }

  /** An admin moves a workspace to another zone: new windows use it, open ones keep theirs (docs/API.md, Reconciliation windows). */
  async #changeTimeZone(): Promise<void> {
    const model = this.#prng.pick([...this.#models.values()])
    const timeZone = this.#prng.pick(timeZones)
    this.#system({ type: 'workspace.update', at_ms: this.#nowMs, id: model.id, time_zone: timeZone })
    model.timeZone = timeZone
    await this.#running.durable()
  }

  /**
   * An admin sets the workspace's approvals (docs/API.md, Approvals): closes with a residual and write-offs over a
   * threshold wait for a second key, or nothing does. The edge stamps the setting on each close and write-off.
   */
  async #changeApprovals(): Promise<void> {
    const model = this.#prng.pick([...this.#models.values()])
    const approvals = this.#prng.chance(0.15)
      ? { close_with_residual: false, write_off_over: null }
      : { close_with_residual: this.#prng.chance(0.6), write_off_over: this.#prng.pick([null, 0, 10, 50, 200]) }
    this.#system({ type: 'workspace.update', at_ms: this.#nowMs, id: model.id, settings: { approvals } })
    model.approvalSettings = approvals
    await this.#running.durable()
  }

  /** An admin rotates a client's key: the old one is revoked (the system state keeps it), a new one takes its place. */
  async #rotateKey(): Promise<void> {
    const client = this.#prng.pick(this.#clients)
    this.#system({ type: 'key.revoke', at_ms: this.#nowMs, id: client.keyId })
    const keyId = `${client.keyId.split('~')[0]}~${this.#batches}`
    this.#system({ type: 'key.create', at_ms: this.#nowMs, id: keyId, workspace: client.workspace, scopes: ['accounts:write', 'entries:write', 'recon:write', 'recon:approve'], accounts: client.visibility, name: 'rotated', secret_hash: `hash_${keyId}` })
    client.keyId = keyId
    await this.#running.durable()
  }

  /** A batch submitted in one turn (one group commit), then acknowledged once durable, and its live updates checked. */
  async #batch(size: number): Promise<void> {
    for (let index = 0; index < size; index++) this.#send(this.#draw())
    await this.#running.durable()
    this.#checkLiveUpdates()
  }

  /**
   * Every window is watched (from the batch after it opened) as a WebSocket subscriber watches it; once the
   * log is durable, each one's last update must be the window as it now reads.
   */
  #checkLiveUpdates(): void {
    const stale = this.#running.staleWindows()
    if (stale.length > 0) throw new SimulationFailure(this.#options.seed, this.step, `live updates: the last update of ${stale.join(', ')} is not the window as it is (a command changed it and did not tell its subscribers)`)
    this.#running.watchWindows()
    this.#liveUpdateChecks++
  }

  /** The process started on the data dir: memory rebuilt from its logs and snapshots. */
  #open(): SimProcess {
    return SimProcess.open(this.#options.dir, this.#options.shards, this.#options.snapshotCommandsInterval, () => this.#nowMs)
  }

  /**
   * A batch whose tail meets a crash of the whole process: the head commits (its replies may or may not reach
   * the clients); each shard's log is armed with its own stage, so the tail's commit on one shard fails at the
   * transaction (lost) and on another at the fsync (kept, never acknowledged). The process restarts from the
   * disk; each workspace whose shard lost its tail is put back to before it; clients then retry what they were
   * never told about, with the same Idempotency-Key.
   */
  async #crashingBatch(size: number): Promise<void> {
    const head = this.#prng.int(0, size - 1)
    const unacknowledged: Sent[] = []
    for (let index = 0; index < head; index++) {
      const sent = this.#draw()
      this.#send(sent)
      if (this.#prng.chance(0.5)) unacknowledged.push(sent)
    }
    await this.#running.durable()
    const kinds = Array.from({ length: this.#running.shards }, (): CrashKind => (this.#prng.chance(0.5) ? 'transaction' : 'flush'))
    const before = new Map([...this.#models].map(([id, model]) => [id, model.clone()]))
    this.#running.armCrash(kinds)
    for (let index = head; index < size; index++) {
      const sent = this.#draw()
      this.#send(sent)
      unacknowledged.push(sent)
    }
    if (!this.#running.appendedSinceArmed) {
      // Nothing reached a log after the switch: no commit to strike, so no crash this time.
      this.#running.armCrash([])
      return void (await this.#running.durable())
    }
    await this.#restartAfterCrash(before)
    // The subscribers of the process that crashed reconnect: each window's current value first.
    this.#running.watchWindows()
    for (const sent of unacknowledged) {
      if (sent.key === undefined || this.step >= this.#options.steps) continue
      this.#send(sent)
      this.#retriesAfterCrash++
    }
    await this.#running.durable()
    this.#checkLiveUpdates()
  }

  /** The crash strikes; the models of the workspaces whose shard lost its tail go back to before it; the process starts again. */
  async #restartAfterCrash(before: Map<string, WorkspaceModel>): Promise<void> {
    const process = this.#running
    const struck = await process.crash()
    for (const kind of struck) if (kind !== null) this.#crashes[kind]++
    if (struck.includes('transaction') && struck.includes('flush')) this.#mixedCrashes++
    for (const [id, model] of before) if (struck[process.shardOf(id)] === 'transaction') this.#models.set(id, model)
    this.#node = this.#open()
    await this.#running.durable()
    this.#tripleCheck(`restart after a crash (${struck.map((kind) => kind ?? 'idle').join(', ')})`)
  }

  /** The next request: a retry of an earlier keyed one (same body, or now and then a changed one), or a new one. */
  #draw(): Sent {
    const client = this.#prng.pick(this.#clients)
    if (client.sent.length > 0 && this.#prng.chance(0.06)) {
      const earlier = this.#prng.pick(client.sent)
      return { client, request: this.#prng.chance(0.25) ? altered(earlier.request) : earlier.request, key: earlier.key }
    }
    const model = this.#models.get(client.workspace)!
    const request = nextRequest(this.#prng, model, client, this.#nowMs)
    if (isRead(request)) return { client, request, key: undefined }
    return this.#keyedOrNot(client, request)
  }

  /** A write sent with an Idempotency-Key (remembered for retries) or without one. */
  #keyedOrNot(client: Client, request: Request): Sent {
    if (!this.#prng.chance(0.6)) return { client, request, key: undefined }
    const key = `${client.name}-${++client.keysIssued}`
    client.sent.push({ key, request })
    if (client.sent.length > 50) client.sent.shift()
    return { client, request, key }
  }

  /** Sends one request and checks its reply; returns whether it appended a log record (a fresh acceptance). */
  #send(sent: Sent): boolean {
    this.#tick()
    const { client, request, key } = sent
    if (isRead(request)) return this.#read(client, request)
    const model = this.#models.get(client.workspace)!
    const settings = model.approvalSettings
    const stamped = isGated(request) && (settings.close_with_residual || settings.write_off_over !== null) ? { ...request, approvals: settings } : request
    const command = { ...stamped, at_ms: this.#nowMs, key_id: client.keyId, visibility: client.visibility } as WorkspaceCommand
    const fingerprint = canonicalJson(request)
    const withKey = key === undefined ? command : { ...command, idempotency: { key, fingerprint } }
    const stored = key === undefined ? undefined : model.idempotency.get(key)
    const mustReplay = stored !== undefined && this.#nowMs - stored.createdAtMs <= idempotencyTtlMs
    const expectation = predict(model, request, { atMs: this.#nowMs, keyId: client.keyId, visibility: client.visibility })
    const checkState = this.#prng.chance(this.#options.rejectionCheckChance)
    const before = checkState ? workspaceText(this.#running.live().workspaces.get(client.workspace)!) : null
    const reply = asTheClientReadsIt(this.#running.submit(client.workspace, withKey))
    this.step++
    if (stored !== undefined && (mustReplay || reply.replayed)) return this.#checkKeyed(sent, reply, stored, fingerprint, before)
    this.#check(sent, reply, expectation, before)
    if (!reply.outcome.ok && !expectation.ok && expectation.changes !== undefined) {
      // An approve whose action is refused now: the approval is failed, and a retry of its key answers the same error.
      expectation.changes()
      this.#approvalsFailed++
      this.#checkCounts(sent, model)
      if (key === undefined) return true
      model.idempotency.set(key, { fingerprint, status: failedStatus, bodyText: reply.outcome.code, createdAtMs: this.#nowMs })
      // Its client, told the error, tries again now and then with the same key: the same error, replayed.
      if (this.step < this.#options.steps && this.#prng.chance(0.5)) this.#send(sent)
      return true
    }
    if (reply.outcome.ok && expectation.ok) {
      expectation.commit(reply.outcome.body)
      if (reply.outcome.status === 202) this.#checkHeldWindow(sent, model)
      if (request.type === 'match.auto' && reply.outcome.replayed !== true) this.#autoMatched += (reply.outcome.body as { data: unknown[] }).data.length
      // An import answered from what it imported before stores nothing for its key (it was not carried out again).
      if (key !== undefined && expectation.replayed !== true) model.idempotency.set(key, { fingerprint, status: reply.outcome.status, bodyText: JSON.stringify(reply.outcome.body), createdAtMs: this.#nowMs })
    }
    this.#checkCounts(sent, model)
    return reply.outcome.ok && reply.outcome.replayed !== true
  }

  /**
   * A read (a match batch's dry run, proposals) checked like a write: the model predicts it, and it must
   * change nothing. Proposals are then, now and then, accepted: sent back as one match batch.
   */
  #read(client: Client, request: ReadRequest): boolean {
    const model = this.#models.get(client.workspace)!
    const envelope = { at_ms: this.#nowMs, key_id: client.keyId, visibility: client.visibility }
    const expectation = predict(model, request, { atMs: this.#nowMs, keyId: client.keyId, visibility: client.visibility })
    // A dry run changes the state and undoes it: checked three times as often as a rejection (a full serialization each).
    const before = this.#prng.chance(Math.min(1, 3 * this.#options.rejectionCheckChance)) ? workspaceText(this.#running.live().workspaces.get(client.workspace)!) : null
    const reply = request.type === 'proposals'
      ? this.#running.proposals(client.workspace, request.window, { dateToleranceDays: request.date_tolerance_days, maxGroup: request.max_group, limit: request.limit, cursor: null }, client.visibility)
      : request.type === 'match.auto.dry_run' ? this.#running.autoMatchWhatIf(client.workspace, request.window, client.visibility)
        : this.#running.dryRunMatches(client.workspace, { ...envelope, type: 'match.batch', window: request.window, matches: request.matches })
    this.step++
    const sent = { client, request, key: undefined }
    this.#check(sent, reply, expectation, null)
    this.#checkUnchanged(sent, before)
    this.#checkCounts(sent, model)
    const proposals = reply.outcome.ok && request.type === 'proposals' ? (reply.outcome.body as { data: { statement_lines: string[]; entries: string[]; date_tolerance_days: number }[] }).data : []
    if (proposals.length === 0 || this.step >= this.#options.steps || !this.#prng.chance(0.7)) return false
    const accepted = proposals.filter(() => this.#prng.chance(0.8))
    const matches = (accepted.length > 0 ? accepted : proposals).map((proposal) => ({ statement_lines: proposal.statement_lines, entries: proposal.entries, strategy: 'amount_and_date' as const, reason: null, date_tolerance_days: proposal.date_tolerance_days }))
    const appended = this.#send(this.#keyedOrNot(client, { type: 'match.batch', window: request.window, matches }))
    if (appended) this.#proposalsAccepted += matches.length
    return appended
  }

  /** The cheap check after every step: how many accounts, entries, windows, matches and stored answers exist. */
  #checkCounts(sent: Sent, model: WorkspaceModel): void {
    const state = this.#running.live().workspaces.get(model.id)!
    const live = [state.accounts.length, state.entries.length, state.windows.windows.length, state.windows.matches.length]
    const expected = [model.accounts.length, model.entries.length, model.windows.length, model.matches.length]
    if (live.join() !== expected.join()) this.#fail(sent, `accounts, entries, windows, matches: ${live.join(', ')}; the model has ${expected.join(', ')}`)
  }

  /** A retry with a stored answer: the same request replays that answer exactly; another one is a conflict. */
  #checkKeyed(sent: Sent, reply: Reply, stored: { fingerprint: string; status: number; bodyText: string }, fingerprint: string, before: string | null): boolean {
    if (stored.fingerprint !== fingerprint) {
      this.#check(sent, reply, { ok: false, code: 'idempotency_conflict' }, before)
      return false
    }
    const outcome = reply.outcome
    if (stored.status === failedStatus) {
      const code = outcome.ok ? (outcome.body as { error?: { code?: string } } | null)?.error?.code : outcome.code
      if (!reply.replayed || code !== stored.bodyText) this.#fail(sent, `a retry of a failed approve with key ${sent.key} answered ${JSON.stringify(outcome)}${reply.replayed ? '' : ' (not replayed)'}; the first answer was ${stored.bodyText}`)
      this.#replayed++
      this.#checkUnchanged(sent, before)
      return false
    }
    if (!outcome.ok || !reply.replayed) this.#fail(sent, `a retry with key ${sent.key} was ${outcome.ok ? 'executed again' : `refused ${outcome.code}`} instead of replayed`)
    if (outcome.ok && (outcome.status !== stored.status || JSON.stringify(outcome.body) !== stored.bodyText)) this.#fail(sent, `the replay of key ${sent.key} differs from the first answer`)
    this.#replayed++
    this.#checkUnchanged(sent, before)
    return false
  }

  #check(sent: Sent, reply: Reply, expectation: Expectation, before: string | null): void {
    const outcome = reply.outcome
    const counts = this.#requests[coverageName(sent.request, outcome)] ??= { accepted: 0, refused: 0 }
    counts[outcome.ok ? 'accepted' : 'refused']++
    if (reply.replayed) this.#fail(sent, 'a request the model never saw accepted was answered as a replay')
    if (outcome.ok && expectation.ok && (outcome.replayed === true) !== (expectation.replayed === true)) {
      this.#fail(sent, `answered ${outcome.replayed === true ? 'as carried out before (Replayed)' : 'as carried out now'}; the model expects the other`)
    }
    if (!outcome.ok) {
      this.#rejections[outcome.code] = (this.#rejections[outcome.code] ?? 0) + 1
      if (expectation.ok) this.#fail(sent, `refused ${outcome.code} (${outcome.message}); the model expects ${expectation.status}`)
      if (outcome.code !== expectation.code) this.#fail(sent, `refused ${outcome.code} (${outcome.message}); the model expects ${expectation.code}`)
      // The one refusal that changes state: an approve whose action fails now records the approval as failed.
      if (expectation.changes === undefined) this.#checkUnchanged(sent, before)
      else this.#checkChanged(sent, before)
      return
    }
    this.#accepted++
    if (!expectation.ok) this.#fail(sent, `accepted ${outcome.status}; the model expects ${expectation.code}: ${JSON.stringify(outcome.body)}`)
    if (outcome.status !== expectation.status) this.#fail(sent, `status ${outcome.status}, the model expects ${expectation.status}`)
    const problem = expectation.check(outcome.body)
    if (problem !== null) this.#fail(sent, `${problem}; reply ${JSON.stringify(outcome.body)}`)
  }

  /** A refused or replayed request changes nothing (docs/API.md, Admin API): compared on a sampled share, a full serialization each. */
  #checkUnchanged(sent: Sent, before: string | null): void {
    if (before === null) return
    this.#rejectionsChecked++
    const after = workspaceText(this.#running.live().workspaces.get(sent.client.workspace)!)
    if (after !== before) this.#fail(sent, 'a refused or replayed request changed the workspace state')
  }

  /** A held close or write-off (202) changed nothing but the approval: its window reads as the model has it. */
  #checkHeldWindow(sent: Sent, model: WorkspaceModel): void {
    const window = model.windows.find((each) => 'window' in sent.request && each.id === sent.request.window)
    if (window === undefined) return
    const outcome = this.#running.query(model.id, (current) => getWindow(current, window.id, null))
    const problem = outcome.ok ? checkWindowBody(model, window, outcome.body) : `window ${window.id} reads ${outcome.code}`
    if (problem !== null) this.#fail(sent, `held for approval, yet the window changed: ${problem}`)
  }

  /** An approve refused with its action's error still decides the approval (failed): the state must have changed. */
  #checkChanged(sent: Sent, before: string | null): void {
    if (before === null) return
    const after = workspaceText(this.#running.live().workspaces.get(sent.client.workspace)!)
    if (after === before) this.#fail(sent, 'an approve whose action failed left the approval unchanged (it must become failed)')
  }

  #fail(sent: Sent, detail: string): never {
    throw new SimulationFailure(this.#options.seed, this.step, `${sent.client.name} ${sent.key === undefined ? '' : `[key ${sent.key}] `}${JSON.stringify(sent.request)}: ${detail}`)
  }

  /** The injected clock: seconds to minutes per request, now and then hours (new days, expired Idempotency-Keys). */
  #tick(): void {
    this.#nowMs += this.#prng.chance(0.003) ? this.#prng.int(6, 30) * 3_600_000 : this.#prng.int(1_000, 90_000)
  }

  async #snapshot(): Promise<void> {
    await this.#running.snapshot(this.#prng.chance(0.3))
    this.#snapshotRounds++
  }

  /** Live = replayed from the log = restored from the snapshots, and every window and balance reads as the model has it. */
  #tripleCheck(reason: string): void {
    const node = this.#running
    const live = node.live()
    const replayed = node.replayedFromLog()
    const restored = node.restoredFromSnapshots(() => this.#nowMs)
    const problem = node.placementProblem() || statesDifference(live, replayed, ['live', 'replayed from the log']) || statesDifference(live, restored, ['live', 'restored from the snapshots'])
    if (problem !== '') throw new SimulationFailure(this.#options.seed, this.step, `triple check (${reason}): ${problem}`)
    for (const model of this.#models.values()) this.#audit(model)
    this.#tripleChecks++
    this.#lastCheckStep = this.step
    this.#options.progress?.(`step ${this.step}: triple check (${reason}) passed`)
  }

  #audit(model: WorkspaceModel): void {
    const failure = (detail: string) => new SimulationFailure(this.#options.seed, this.step, `audit of ${model.id}: ${detail}`)
    const selfProblem = model.selfCheck()
    if (selfProblem !== null) throw failure(selfProblem)
    const state = this.#running.live().workspaces.get(model.id)!
    if (state.entries.length !== model.entries.length) throw failure(`${state.entries.length} entries, the model has ${model.entries.length}`)
    if (state.windows.windows.length !== model.windows.length) throw failure(`${state.windows.windows.length} windows, the model has ${model.windows.length}`)
    for (const window of model.windows) {
      const outcome = this.#running.query(model.id, (current) => getWindow(current, window.id, null))
      if (!outcome.ok) throw failure(`window ${window.id} reads ${outcome.code}`)
      const problem = checkWindowBody(model, window, outcome.body)
      if (problem !== null) throw failure(problem)
    }
    this.#auditApprovals(model, failure)
    const times = [this.#nowMs, this.#nowMs - 10 * 86_400_000, ...model.windows.slice(-3).map((window) => window.startMs - 1)]
    for (const [index, account] of model.accounts.entries()) {
      for (const atMs of times) {
        const outcome = this.#running.query(model.id, (current) => balanceAt(current, account.id, atMs, null))
        const expected = model.balanceAt(index, atMs)
        if (!outcome.ok || (outcome.body as { balance: number }).balance !== expected) throw failure(`balance of ${account.name} at ${new Date(atMs).toISOString()}: ${JSON.stringify(outcome)}, the model has ${expected}`)
      }
    }
  }

  /** GET /v2/approvals, whole and by each state, for a key that sees everything and for one that sees some accounts. */
  #auditApprovals(model: WorkspaceModel, failure: (detail: string) => SimulationFailure): void {
    for (const visibility of [null, this.#clients.find((client) => client.workspace === model.id && client.visibility !== null)?.visibility ?? null]) {
      for (const state of [null, ...approvalStates]) {
        const outcome = this.#running.query(model.id, (current) => listApprovals(current, { state, limit: 1000, cursor: null }, visibility))
        if (!outcome.ok) throw failure(`approvals?state=${state} reads ${outcome.code}`)
        const problem = approvalsListProblem(model, state, visibility, outcome.body)
        if (problem !== null) throw failure(problem)
      }
    }
  }

  #windowStates(): Record<string, number> {
    const counts: Record<string, number> = { open: 0, balanced: 0, closed: 0, abandoned: 0, everBalanced: 0 }
    for (const model of this.#models.values()) {
      for (const window of model.windows) {
        counts[window.state]++
        if (window.everBalanced) counts.everBalanced++
      }
    }
    return counts
  }

  #report(): SimulationReport {
    return {
      seed: this.#options.seed, shards: this.#options.shards, workspacesPerShard: this.#running.workspacesPerShard(), mixedCrashes: this.#mixedCrashes, workspacesRepaired: this.#workspacesRepaired, steps: this.step, batches: this.#batches, crashes: { ...this.#crashes }, tripleChecks: this.#tripleChecks,
      snapshotRounds: this.#snapshotRounds, accepted: this.#accepted, replayed: this.#replayed, rejections: { ...this.#rejections },
      rejectionsChecked: this.#rejectionsChecked, retriesAfterCrash: this.#retriesAfterCrash, windowStates: this.#windowStates(),
      requests: structuredClone(this.#requests), proposalsAccepted: this.#proposalsAccepted, autoMatched: this.#autoMatched, approvalsFailed: this.#approvalsFailed, liveUpdateChecks: this.#liveUpdateChecks,
    }
  }
}
