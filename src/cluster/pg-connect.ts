/**
 * @module Finding the PostgreSQL primary among several servers, as libpq's multi-host URLs do
 * (`postgres://h1:p1,h2:p2/db?target_session_attrs=read-write`, what pg_auto_failover's `show uri` prints), which
 * node-postgres does not: the hosts are tried in turn and, when a read-write server is wanted, the first whose
 * session is neither in recovery nor read only is kept. PrimaryPool is a connection pool on that server which, on a
 * lost connection or a read-only refusal (the primary died, or was demoted, and a standby was promoted), forgets it
 * and finds the primary again on the next query, with backoff, for a bounded time (docs/CLUSTER.md, "Failover of the
 * database").
 *
 * A query that fails that way is not retried here: whether it took effect is unknown to this module (a commit may
 * have reached the new primary through synchronous replication). Its caller decides; src/cluster/append-outcome.ts
 * does for the log's appends.
 */

import pg from 'pg'

export interface HostPort {
  readonly host: string
  readonly port: number
}

/** A database URL taken apart: the hosts in order, what each connection shares, and whether a writer is required. */
export interface DatabaseTarget {
  readonly hosts: readonly HostPort[]
  /** target_session_attrs=read-write or primary: only a server that accepts writes is kept. */
  readonly readWrite: boolean
  /** user, password, database, ssl: the same for every host. */
  readonly shared: Readonly<pg.ClientConfig>
}

const defaultPort = 5432

/** The sslmodes under which a connection must use TLS (prefer and allow fall back to plain, which node-postgres cannot: they mean plain here). */
const tlsModes = new Set(['require', 'verify-ca', 'verify-full'])

function parseHost(text: string, portDefault: number): HostPort {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  // A socket directory (`?host=/run/postgresql`) is a host too; its name has no port after it.
  const [host, port] = bracketed !== null ? [bracketed[1], bracketed[2]] : text.startsWith('/') ? [text, undefined] : [text.replace(/:\d+$/, ''), /:(\d+)$/.exec(text)?.[1]]
  if (host === '') throw new Error('a database URL names an empty host')
  return { host: decodeURIComponent(host), port: port === undefined ? portDefault : Number(port) }
}

/**
 * Parses postgres://[user[:password]@]host[:port][,host[:port]…][/database][?params]. Of the parameters, these are
 * read: target_session_attrs (any, read-write, primary), sslmode, application_name, and host and port when the URL
 * names no host; others are ignored.
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const match = /^postgres(?:ql)?:\/\/(?:([^@/]*)@)?([^/?]*)(?:\/([^?]*))?(?:\?(.*))?$/.exec(url)
  if (match === null) throw new Error('a database URL must look like postgres://[user@]host[:port][,host[:port]…]/database')
  const [, userInfo, hostList, database, query] = match
  const params = new URLSearchParams(query ?? '')
  // libpq also takes the hosts (and a port for those without one) as parameters: postgres:///db?host=/run/postgresql.
  const portDefault = params.has('port') ? Number(params.get('port')) : defaultPort
  const hosts = (hostList !== '' ? hostList : params.get('host') ?? 'localhost').split(',').map((host) => parseHost(host, portDefault))
  const attrs = params.get('target_session_attrs') ?? 'any'
  if (!['any', 'read-write', 'primary'].includes(attrs)) throw new Error(`target_session_attrs=${attrs} is not supported (any, read-write, primary)`)
  const [user, password] = (userInfo ?? '').split(':').map((part) => decodeURIComponent(part))
  const sslmode = params.get('sslmode') ?? 'disable'
  const shared: pg.ClientConfig = {
    user: user === '' || user === undefined ? undefined : user, password,
    database: database === undefined || database === '' ? undefined : decodeURIComponent(database),
    ssl: tlsModes.has(sslmode) ? { rejectUnauthorized: sslmode !== 'require' } : false,
    application_name: params.get('application_name') ?? undefined,
  }
  return { hosts, readWrite: attrs !== 'any', shared }
}

/** SQLSTATEs after which the server is not (or no longer) a usable primary: read only, shutting down, starting. */
const failoverStates = new Set(['25006', '57P01', '57P02', '57P03'])

/**
 * Whether an error means the connection or the server's role is gone, so that another host may be the primary now:
 * no SQLSTATE (a socket error, a connection terminated, a connect timeout), a connection exception (class 08), a
 * shutdown, or a write refused as read only.
 */
export function isFailoverError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return true
  return code.startsWith('08') || failoverStates.has(code)
}

/** No host could be used within the window: every one refused, timed out, or was read only when a writer was wanted. */
export class NoPrimaryError extends Error {
  constructor(readonly target: DatabaseTarget, readonly lastReasons: readonly string[]) {
    super(`no ${target.readWrite ? 'read-write ' : ''}PostgreSQL server among ${target.hosts.map(({ host, port }) => `${host}:${port}`).join(', ')} (${lastReasons.join('; ')})`)
    this.name = 'NoPrimaryError'
  }
}

/** One connection to the first host that answers (and accepts writes, when the target says so); rejects with every host's reason. */
export async function connectTarget(target: DatabaseTarget, connectTimeoutMs: number): Promise<{ client: pg.Client; host: HostPort }> {
  const reasons: string[] = []
  for (const host of target.hosts) {
    const client = new pg.Client({ ...target.shared, host: host.host, port: host.port, connectionTimeoutMillis: connectTimeoutMs })
    client.on('error', () => undefined)
    try {
      await client.connect()
      if (target.readWrite) {
        const state = await client.query<{ recovering: boolean; read_only: string }>(
          `SELECT pg_is_in_recovery() AS recovering, current_setting('transaction_read_only') AS read_only`)
        const { recovering, read_only: readOnly } = state.rows[0]
        if (recovering || readOnly === 'on') throw new Error(recovering ? 'in recovery (a standby)' : 'read only')
      }
      return { client, host }
    } catch (error) {
      reasons.push(`${host.host}:${host.port}: ${error instanceof Error ? error.message : String(error)}`)
      await client.end().catch(() => undefined)
    }
  }
  throw new NoPrimaryError(target, reasons)
}

export interface PrimaryPoolOptions {
  /** Connections in the pool. */
  readonly size: number
  /** How long finding a primary may take (all hosts tried again and again) before a query fails with NoPrimaryError. */
  readonly findWindowMs?: number
  /** Each host's connect attempt gives up after this long. */
  readonly connectTimeoutMs?: number
  /** Keep only a server that accepts writes, whatever the URL's target_session_attrs says (the log's appends). */
  readonly writer?: boolean
}

/** A statement prepared on each connection under its name the first time it runs there (the hot ones: appends, reads). */
export interface NamedStatement {
  readonly name: string
  readonly text: string
}

/** Finding a primary keeps trying this long by default: pg_auto_failover's failover with the local cluster's settings takes about 10 s. */
export const findWindowMsDefault = 30_000
const connectTimeoutMsDefault = 2_000
/** Backoff between rounds over the hosts: from the first to the last, doubling. */
const backoffFirstMs = 50
const backoffLastMs = 1_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A pg.Pool on whichever host is the primary now; found again after a failover (above). */
export class PrimaryPool {
  readonly target: DatabaseTarget
  #pool: pg.Pool | null = null
  #host: HostPort | null = null
  #finding: Promise<pg.Pool> | null = null
  #ended = false

  constructor(url: string, private readonly options: PrimaryPoolOptions) {
    const parsed = parseDatabaseUrl(url)
    this.target = { ...parsed, readWrite: parsed.readWrite || options.writer === true }
  }

  /** The host in use, or null between a loss and the next query. */
  get host(): HostPort | null { return this.#host }

  /**
   * Runs one statement on the primary; a failover error makes the next call find the primary again. A named statement
   * ({ name, text }) is prepared once per connection and then only bound and executed: no parse and plan per call.
   */
  async query<Row extends pg.QueryResultRow>(statement: string | NamedStatement, values?: unknown[]): Promise<pg.QueryResult<Row>> {
    const pool = await this.#current()
    try {
      return await (typeof statement === 'string' ? pool.query<Row>(statement, values) : pool.query<Row>({ name: statement.name, text: statement.text, values }))
    } catch (error) {
      if (isFailoverError(error)) this.#forget(pool)
      throw error
    }
  }

  /** A client of the pool for a transaction; release it with `release(error)` when the error was a failover error. */
  async connect(): Promise<pg.PoolClient> {
    const pool = await this.#current()
    try {
      return await pool.connect()
    } catch (error) {
      if (isFailoverError(error)) this.#forget(pool)
      throw error
    }
  }

  /** Reports a failover error met on a client of `connect()`: the pool is dropped and the primary found again. */
  lost(error: unknown): void {
    if (isFailoverError(error) && this.#pool !== null) this.#forget(this.#pool)
  }

  async end(): Promise<void> {
    this.#ended = true
    const pool = this.#pool
    this.#pool = null
    await this.#finding?.catch(() => undefined)
    await pool?.end()
  }

  #current(): Promise<pg.Pool> {
    if (this.#ended) return Promise.reject(new Error('the database pool is closed'))
    if (this.#pool !== null) return Promise.resolve(this.#pool)
    this.#finding ??= this.#find().finally(() => { this.#finding = null })
    return this.#finding
  }

  #forget(pool: pg.Pool): void {
    if (this.#pool !== pool) return
    this.#pool = null
    this.#host = null
    // Its other connections may hang on a dead server: end them in the background, never waited for.
    void pool.end().catch(() => undefined)
  }

  /** Rounds over the hosts with backoff until one fits, bounded by the find window. */
  async #find(): Promise<pg.Pool> {
    const deadline = Date.now() + (this.options.findWindowMs ?? findWindowMsDefault)
    const connectTimeoutMs = this.options.connectTimeoutMs ?? connectTimeoutMsDefault
    for (let backoffMs = backoffFirstMs; ; backoffMs = Math.min(backoffMs * 2, backoffLastMs)) {
      try {
        const { client, host } = await connectTarget(this.target, connectTimeoutMs)
        await client.end().catch(() => undefined)
        if (this.#ended) throw new Error('the database pool is closed')
        return this.#use(host)
      } catch (error) {
        if (!(error instanceof NoPrimaryError) || Date.now() + backoffMs >= deadline) throw error
      }
      await sleep(backoffMs)
    }
  }

  #use(host: HostPort): pg.Pool {
    const pool = new pg.Pool({ ...this.target.shared, host: host.host, port: host.port, max: this.options.size, connectionTimeoutMillis: this.options.connectTimeoutMs ?? connectTimeoutMsDefault })
    // An idle connection's error (the server went away): forget the server, so the next query looks again.
    pool.on('error', () => this.#forget(pool))
    this.#pool = pool
    this.#host = host
    return pool
  }
}
