/**
 * @module A bank statement file as a request body (docs/API.md, Bank statement formats): the query that names its format and
 * label, the media types that name a format (all from the formats' list, statements/formats.ts), and its reading
 * into statements by the lifecycle's `parse` stage (off the event loop: statement-worker.ts), balances checked;
 * then the statements.import command's inputs.
 */

import { createHash } from 'node:crypto'
import { reject, type Rejection } from '../errors.js'
import type { StatementInput, StatementLineInput } from '../ledger/commands.js'
import { formatOfContentType, isStatementFormat } from '../statements/detect.js'
import { formatTitles, statementFormatNames, statementFormats } from '../statements/formats.js'
import type { Statement, StatementFormat } from '../statements/types.js'
import { enumQuery, textQuery, type QueryParam } from './query.js'
import type { ParseFormat } from './route.js'
import { hasControlCharacter, textProblem } from './schemas/text.js'
import { readInWorker } from './statement-worker-pool.js'

export const formatQuery = enumQuery('format', statementFormatNames, 'The file format; overrides Content-Type and the content')
const labelText = textQuery('label', 'The label of every window the file opens; default `<statement_ref> <account identifier>`', 200)
/** A label is free text like a window's, shown in lists and exports: the same rule (schemas/text.ts). */
export const labelQuery: QueryParam<string | null, 'label'> = {
  ...labelText,
  parse: (query) => {
    const label = labelText.parse(query)
    if (!label.ok || label.value === null || !hasControlCharacter(label.value)) return label
    return reject('request_invalid', `Query parameter label: ${textProblem}.`, [{ path: '/label', message: textProblem }])
  },
}

/** The `?format=` of a route's query values (null: from Content-Type, else the content). */
export function declaredFormatOf(values: Readonly<Record<string, unknown>>): StatementFormat | null {
  const format = values[formatQuery.name]
  return typeof format === 'string' && isStatementFormat(format) ? format : null
}

/**
 * A statement file as the body parser hands it to the `parse` stage, unread. A class, so no JSON value
 * (a WebSocket message's body) can pass for one.
 */
export class StatementFile {
  constructor(readonly bytes: Uint8Array, readonly contentType: string | null) {}
}

/** A statement file as its route's handler receives it: read by the `parse` stage, every statement balanced. */
export class StatementsRead {
  constructor(readonly statements: readonly Statement[]) {}
}

/** The Content-Types that name a statement format (each format's own, statements/formats.ts): a statement file wherever one is read. */
export const statementMediaTypes: readonly ParseFormat[] = statementFormats.flatMap((format) => format.mediaTypes)

/**
 * POST /v2/statements reads every body as a statement file, whatever its type: besides those above, the
 * generic types a file is often sent as (the OpenAPI document lists them), the format then from ?format= or the content.
 */
export const statementFileMediaTypes: readonly ParseFormat[] = [
  ...statementMediaTypes,
  { mediaType: 'text/plain', description: `Any of ${formatTitles('or')}: the format from ?format=, else from the content (${statementFormats.map((format) => `${format.signature}: ${format.title}`).join('; ')})` },
  { mediaType: 'application/octet-stream', description: 'As text/plain: ?format=, else the content' },
]

/** Whether a body is a statement file: `?format=` or a statement Content-Type says so. */
export function namesStatementFile(contentType: string, query: URLSearchParams): boolean {
  return query.has('format') || formatOfContentType(contentType) !== null
}

/** The body parser of a statement file: the file, unread (the `parse` stage reads it once the query's ?format= is known good). */
export function statementFileOf(bytes: Buffer, contentType: string): { ok: true; value: StatementFile } {
  return { ok: true, value: new StatementFile(bytes, contentType) }
}

/**
 * The statements of a file, balanced (statement_invalid, statement_unbalanced otherwise), read in the worker
 * thread whatever its size (statement-worker-pool.ts says why).
 */
export function readStatementFile(file: StatementFile, format: StatementFormat | null): Promise<{ ok: true; value: StatementsRead } | Rejection> {
  return readInWorker(file.bytes, file.contentType, format).then((result) => (result.ok ? { ok: true, value: new StatementsRead(result.statements) } : result))
}

/** Statements turned into inputs per turn of the event loop: each is hashed, a few tens of microseconds. */
const inputsPerTurn = 128

/** statementInputsOf a turn of the event loop at a time, so a file of many statements holds no one up. */
export function statementInputsLater(statements: readonly Statement[], label: string | null): Promise<StatementInput[]> {
  const inputs: StatementInput[] = []
  return new Promise((resolve) => {
    const step = (start: number): void => {
      inputs.push(...statementInputsOf(statements.slice(start, start + inputsPerTurn), label))
      if (start + inputsPerTurn >= statements.length) return resolve(inputs)
      setImmediate(() => step(start + inputsPerTurn))
    }
    step(0)
  })
}

export function lineInputOf(entry: Statement['entries'][number]): StatementLineInput {
  return { amount: entry.amount, date: entry.date, value_date: entry.value_date, reference: entry.reference, description: entry.description, counterparty: entry.counterparty }
}

/** The command's statements: label, period, claimed movement, lines, and a hash of the content that knows it again. */
export function statementInputsOf(statements: readonly Statement[], label: string | null): StatementInput[] {
  return statements.map((statement) => {
    const lines = statement.entries.map(lineInputOf)
    const content = { account: statement.account, currency: statement.currency, statement_ref: statement.statement_ref, opening: statement.opening, closing: statement.closing, period: statement.period, lines }
    return {
      account: statement.account,
      currency: statement.currency,
      statement_ref: statement.statement_ref,
      label: label ?? labelOf(`${statement.statement_ref} ${statement.account}`),
      from: statement.period.from,
      to: statement.period.to,
      claimed_movement: statement.closing.amount - statement.opening.amount,
      opening_balance: statement.opening.amount,
      closing_balance: statement.closing.amount,
      fingerprint: createHash('sha256').update(JSON.stringify(content)).digest('base64url'),
      lines,
    }
  })
}

/** A window label is at most 200 characters: cut there, but never between the two halves of a surrogate pair. */
function labelOf(text: string): string {
  const cut = text.slice(0, 200)
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut
}

/** The accounts and currencies of a file's statements, for the lines route's check that they are the window's. */
export function statementAccountsOf(statements: readonly Statement[]): { account: string; currency: string }[] {
  return statements.map((statement) => ({ account: statement.account, currency: statement.currency }))
}
