/**
 * @module The rows of the boundary bench (bench/boundary.ts): each row's load (connections, the requests it sends)
 * and the workspaces it makes, shared with bench/profile-row.ts, which profiles or A/Bs one row on one server.
 */
import { randomBytes } from 'node:crypto'
import { call, type LoadRequest, type LoadSettings } from './http.ts'
import { seededRandom } from './scenarios.ts'

export interface Row {
  readonly key: string
  readonly name: string
  readonly settings: LoadSettings
  readonly next: (secret: string, accounts: readonly string[], window: string, extraKeys: readonly string[]) => () => LoadRequest
  /** Workspaces made (over the admin API) before the row, each with a key and the two accounts postings name. */
  readonly workspaces?: number
}

/** Postings spread over several workspaces' keys in turn, each between its two accounts. */
export function spreadPost(keys: readonly string[]): () => LoadRequest {
  let index = 0
  return () => {
    index++
    const body = JSON.stringify({ lines: [{ account: 'assets:bank', amount: index }, { account: 'income:sales', amount: -index }], description: `spread ${index}` })
    return { method: 'POST', path: '/v2/entries', headers: { authorization: `Bearer ${keys[index % keys.length]}`, 'content-type': 'application/json' }, body }
  }
}

function entryPost(secret: string, keyed: boolean): () => LoadRequest {
  const random = seededRandom(7)
  const tag = randomBytes(4).toString('hex')
  let index = 0
  return () => {
    index++
    const debit = Math.floor(random() * 1000)
    const credit = (debit + 1 + Math.floor(random() * 999)) % 1000
    const name = (i: number) => `acct:${String(i).padStart(3, '0')}`
    const body = JSON.stringify({ lines: [{ account: name(debit), amount: index }, { account: name(credit), amount: -index }], description: `boundary ${index}` })
    const headers: Record<string, string> = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }
    if (keyed) headers['idempotency-key'] = `${tag}-${index}`
    return { method: 'POST', path: '/v2/entries', headers, body }
  }
}

/** Every row, each measured for durationS after warmupS. */
export function boundaryRows(durationS: number, warmupS: number): readonly Row[] {
  const c64: LoadSettings = { connections: 64, pipelining: 1, durationS, warmupS }
  const c640: LoadSettings = { ...c64, connections: 640 }
  return [
    { key: 'post-c64', name: 'POST /v2/entries, durable (-c 64)', settings: c64, next: (secret) => entryPost(secret, false) },
    { key: 'post-c640', name: 'POST /v2/entries, durable (-c 640)', settings: c640, next: (secret) => entryPost(secret, false) },
    { key: 'post-keyed', name: 'POST /v2/entries with Idempotency-Key (-c 64)', settings: c64, next: (secret) => entryPost(secret, true) },
    {
      key: 'balance', name: 'GET balance, random of 1,000 accounts (-c 64)', settings: c64,
      next: (secret, accounts) => { const random = seededRandom(3); return () => ({ method: 'GET', path: `/v2/accounts/${accounts[Math.floor(random() * accounts.length)]}/balance`, headers: { authorization: `Bearer ${secret}` } }) },
    },
    { key: 'window', name: 'GET reconciliation (-c 64)', settings: c64, next: (secret, _accounts, window) => () => ({ method: 'GET', path: `/v2/reconciliations/${window}`, headers: { authorization: `Bearer ${secret}` } }) },
    { key: 'post-8-workspaces', name: 'POST /v2/entries to 8 workspaces at once (-c 64)', settings: c64, workspaces: 8, next: (_secret, _accounts, _window, keys) => spreadPost(keys) },
  ]
}

/** Workspaces w0…, each with a key and its two accounts; their secrets. */
export async function makeWorkspaces(port: number, adminToken: string, count: number): Promise<string[]> {
  const secrets: string[] = []
  for (let index = 0; index < count; index++) {
    const id = `w${index}`
    const created = await call(port, 'POST', '/admin/workspaces', adminToken, { id, timezone: 'UTC', limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
    if (created.status !== 201) throw new Error(`workspace ${id}: ${created.status}`)
    const key = await call(port, 'POST', '/admin/keys', adminToken, { workspace: id, scopes: ['accounts:write', 'entries:write'] })
    const secret = (key.json as { secret: string }).secret
    for (const name of ['assets:bank', 'income:sales']) await call(port, 'POST', '/v2/accounts', secret, { name })
    secrets.push(secret)
  }
  return secrets
}
