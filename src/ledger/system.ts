/** @module The system state machine: workspaces (timezone, limits) and API keys (scopes, visibility, hashes). */

import { reject } from '../errors.js'
import { formatTimestamp, isValidTimeZone } from './calendar.js'
import { canonicalTimeZone } from './time-zone-name.js'
import { currencyExponent } from './currency.js'
import { unknownCommand, type ApprovalSettings } from './commands.js'
import { accept, type Outcome } from './outcome.js'
import type { SealKeyPair } from './state.js'

export const scopes = ['accounts:read', 'accounts:write', 'entries:read', 'entries:write', 'recon:read', 'recon:write', 'recon:approve', 'hooks:read', 'hooks:write'] as const
export type Scope = (typeof scopes)[number]

export interface Limits {
  readonly writes_per_minute: number
  readonly reads_per_minute: number
}

export const limitsDefault: Limits = { writes_per_minute: 600, reads_per_minute: 3000 }

/** A workspace logged (or snapshotted) before currencies existed is in this one (docs/API.md, Accounts (currencies)). */
export const currencyDefault = 'USD'

/**
 * What a workspace's settings are (docs/API.md, "The workspace"). lock_closed_periods: every closed window's period is locked
 * (docs/API.md, Period locks). approvals: which actions wait for a second key (docs/API.md, Approvals).
 */
export interface WorkspaceSettings {
  readonly lock_closed_periods: boolean
  readonly approvals: ApprovalSettings
}

/** The settings of a new workspace, and of one created (or snapshotted) before settings existed: each one off. */
export const settingsDefault: WorkspaceSettings = { lock_closed_periods: false, approvals: { close_with_residual: false, write_off_over: null } }

/** A settings change: each field given replaces the workspace's (approvals field by field). */
export interface SettingsUpdate {
  readonly lock_closed_periods?: boolean
  readonly approvals?: Partial<ApprovalSettings>
}

export interface WorkspaceRecord {
  readonly id: string
  timeZone: string
  /** ISO 4217: the currency of accounts created without one. */
  currency: string
  limits: Limits
  /** When the limits last changed (create or update): rate buckets switch rate as of then, not when next asked. */
  limitsChangedAtMs: number
  /** Absent in records of snapshots written before settings existed: settingsDefault (restore.ts fills it). */
  settings: WorkspaceSettings
  readonly tag: string
  readonly createdAtMs: number
  /** Signs its closed windows' seals: made with it, or given on upgrade (workspace.seal_key); null until then. */
  sealKey: SealKeyPair | null
  /**
   * Whether sealKey came with workspace.create: the workspace's state starts with it then. A key given on
   * upgrade reaches the workspace's state through its own log record (seal.key), after its earlier commands.
   */
  sealKeyAtCreation: boolean
}

export interface KeyRecord {
  readonly id: string
  readonly workspace: string
  readonly scopes: readonly Scope[]
  readonly accounts: readonly string[] | null
  readonly name: string | null
  /** sha256 of the secret, hex; the secret itself is never stored or logged. */
  readonly secretHash: string
  readonly createdAtMs: number
  revokedAtMs: number | null
}

export interface SystemState {
  readonly workspaces: Map<string, WorkspaceRecord>
  readonly keys: Map<string, KeyRecord>
  readonly keysByHash: Map<string, KeyRecord>
  readonly tags: Set<string>
}

export type SystemCommand =
  | {
    readonly type: 'workspace.create'; readonly at_ms: number; readonly id: string; readonly time_zone: string; readonly limits: Limits; readonly tag: string; readonly currency?: string
    /** The workspace's Ed25519 key pair, made at the edge (docs/API.md, "The seal"); absent in records logged before keys existed. */
    readonly seal_private_key?: string; readonly seal_public_key?: string
  }
  /** A key for a workspace created before keys existed, logged at start-up (runtime.ts). */
  | { readonly type: 'workspace.seal_key'; readonly at_ms: number; readonly id: string; readonly seal_private_key: string; readonly seal_public_key: string }
  | { readonly type: 'workspace.update'; readonly at_ms: number; readonly id: string; readonly time_zone?: string; readonly limits?: Partial<Limits>; readonly currency?: string; readonly settings?: SettingsUpdate }
  | { readonly type: 'key.create'; readonly at_ms: number; readonly id: string; readonly workspace: string; readonly scopes: readonly Scope[]; readonly accounts: readonly string[] | null; readonly name: string | null; readonly secret_hash: string }
  | { readonly type: 'key.revoke'; readonly at_ms: number; readonly id: string }

export function createSystemState(): SystemState {
  return { workspaces: new Map(), keys: new Map(), keysByHash: new Map(), tags: new Set() }
}

/**
 * A workspace as every answer shows it. `settings` (docs/API.md, Period locks). `seal_public_key`: the key its seals are signed with
 * (docs/API.md, "The workspace"), null only before a workspace made before keys existed got its own.
 */
export function workspaceView(workspace: WorkspaceRecord): object {
  // Workspaces created before names were canonicalised at the edge keep the name as typed in their log.
  return {
    id: workspace.id, timezone: canonicalTimeZone(workspace.timeZone) ?? workspace.timeZone, currency: workspace.currency, limits: workspace.limits,
    settings: workspace.settings, seal_public_key: workspace.sealKey?.publicKey ?? null, created_at: formatTimestamp(workspace.createdAtMs),
  }
}

export function keyView(key: KeyRecord): object {
  return { id: key.id, workspace: key.workspace, scopes: key.scopes, accounts: key.accounts, name: key.name, created_at: formatTimestamp(key.createdAtMs), revoked_at: key.revokedAtMs === null ? null : formatTimestamp(key.revokedAtMs) }
}

export function executeSystem(state: SystemState, command: SystemCommand): Outcome {
  switch (command.type) {
    case 'workspace.create': {
      if (!isValidTimeZone(command.time_zone)) return reject('request_invalid', `Unknown IANA timezone: ${command.time_zone}.`, [{ path: '/timezone', message: 'unknown timezone' }])
      if (command.currency !== undefined && currencyExponent(command.currency) === undefined) return unknownCurrency(command.currency)
      if (state.workspaces.has(command.id)) return reject('workspace_exists', `Workspace ${command.id} already exists.`)
      if (state.tags.has(command.tag)) return reject('unavailable', 'Workspace tag collision; retry.')
      // Logged before currencies existed: the default, as every account of it was then.
      const currency = command.currency ?? currencyDefault
      const sealKey = command.seal_private_key === undefined || command.seal_public_key === undefined ? null : { privateKey: command.seal_private_key, publicKey: command.seal_public_key }
      const workspace: WorkspaceRecord = {
        id: command.id, timeZone: command.time_zone, currency, limits: command.limits, limitsChangedAtMs: command.at_ms, settings: settingsDefault, tag: command.tag, createdAtMs: command.at_ms,
        sealKey, sealKeyAtCreation: sealKey !== null,
      }
      state.workspaces.set(workspace.id, workspace)
      state.tags.add(workspace.tag)
      return accept(201, workspaceView(workspace))
    }
    case 'workspace.update': {
      const workspace = state.workspaces.get(command.id)
      if (workspace === undefined) return reject('not_found', `No workspace ${command.id}.`)
      if (command.time_zone !== undefined && !isValidTimeZone(command.time_zone)) return reject('request_invalid', `Unknown IANA timezone: ${command.time_zone}.`, [{ path: '/timezone', message: 'unknown timezone' }])
      if (command.currency !== undefined && currencyExponent(command.currency) === undefined) return unknownCurrency(command.currency)
      if (command.time_zone !== undefined) workspace.timeZone = command.time_zone
      if (command.currency !== undefined) workspace.currency = command.currency
      if (command.settings !== undefined) workspace.settings = updatedSettings(workspace.settings, command.settings)
      if (command.limits !== undefined) {
        workspace.limits = { ...workspace.limits, ...command.limits }
        workspace.limitsChangedAtMs = command.at_ms
      }
      return accept(200, workspaceView(workspace))
    }
    case 'workspace.seal_key': {
      const workspace = state.workspaces.get(command.id)
      if (workspace === undefined) return reject('not_found', `No workspace ${command.id}.`)
      if (workspace.sealKey !== null) return reject('request_invalid', `Workspace ${command.id} has a seal key already.`)
      workspace.sealKey = { privateKey: command.seal_private_key, publicKey: command.seal_public_key }
      return accept(200, workspaceView(workspace))
    }
    case 'key.create': {
      if (!state.workspaces.has(command.workspace)) return reject('not_found', `No workspace ${command.workspace}.`)
      const key: KeyRecord = { id: command.id, workspace: command.workspace, scopes: command.scopes, accounts: command.accounts, name: command.name, secretHash: command.secret_hash, createdAtMs: command.at_ms, revokedAtMs: null }
      state.keys.set(key.id, key)
      state.keysByHash.set(key.secretHash, key)
      return accept(201, keyView(key))
    }
    case 'key.revoke': {
      const key = state.keys.get(command.id)
      if (key === undefined || key.revokedAtMs !== null) return reject('not_found', `No active key ${command.id}.`)
      key.revokedAtMs = command.at_ms
      state.keysByHash.delete(key.secretHash)
      return accept(204, null)
    }
    default: return unknownCommand(command)
  }
}

function updatedSettings(settings: WorkspaceSettings, update: SettingsUpdate): WorkspaceSettings {
  return {
    lock_closed_periods: update.lock_closed_periods ?? settings.lock_closed_periods,
    approvals: { ...settings.approvals, ...update.approvals },
  }
}

function unknownCurrency(code: string) {
  return reject('request_invalid', `Unknown ISO 4217 currency: ${code}.`, [{ path: '/currency', message: 'unknown currency' }])
}
