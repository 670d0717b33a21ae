/**
 * @module Test support: an audit pack as plain data (a head, lines with their matches, matches, history events,
 * shaped as src/ledger/pack-pages.ts makes them) and a driver that feeds it to a format's writer page by page,
 * as src/exports/pack.ts does, taking a chunk after every page. The writers' tests use it without a workspace.
 */
import type { Chunk } from '../../src/api/streamed-answer.ts'
import type { PackAccount, PackHead, PackLine, PackWriter, SectionName } from '../../src/exports/pack.ts'
import type { LineEntry } from '../../src/ledger/window-entries.ts'

export interface PackContent {
  readonly head: PackHead
  readonly lines: readonly PackLine[]
  readonly matches: readonly Record<string, unknown>[]
  readonly history: readonly Record<string, unknown>[]
}

export const sealHex = 'a3f1c2d4e5b6a7980112233445566778899aabbccddeeff00112233445566778'
/** 64 and 32 bytes in base64, the sizes of an Ed25519 signature and public key. */
export const sealSignature = Buffer.alloc(64, 7).toString('base64')
export const sealPublicKey = Buffer.alloc(32, 9).toString('base64')

export function packWindow(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'rec_abc1234000000001', label: 'March statement', accounts: ['assets:bank'], window: { from: '2026-03-01', to: '2026-03-31' },
    statement_ref: 'stmt-03', claimed_movement: 161010, derived_movement: 150000, residual: 0, tolerance: 5, state: 'closed',
    opened_at: '2026-04-01T08:00:00.000Z', closed_at: '2026-04-02T09:30:00.000Z', closed_by: 'key_abcdef01234567', close_reason: 'all matched',
    post_close_drift: null, post_close_entries: null, seal: { sha256: sealHex, signature: sealSignature, public_key: sealPublicKey }, ...overrides,
  }
}

export function packHead(options: { window?: Record<string, unknown>; accounts?: readonly PackAccount[]; matched?: number } = {}): PackHead {
  return {
    format: 'trueup.reconciliation-export', version: 1, seal_version: 1, exported_at: '2026-04-03T10:00:00.000Z',
    window: options.window ?? packWindow(), time_zone: 'Europe/Berlin',
    accounts: options.accounts ?? [{ id: 'acc_abc1234000000001', name: 'assets:bank', currency: 'EUR' }], matched: options.matched ?? 161010,
    closed_by: { id: 'key_abcdef01234567', name: 'Ana Auditor' },
  }
}

export function packMatch(id: string, strategy: string, lines: readonly string[], amount: number, reason: string | null, reversedAt: string | null = null): Record<string, unknown> {
  return {
    id, reconciliation: 'rec_abc1234000000001', strategy, statement_lines: lines, entries: strategy === 'write_off' ? [] : ['ent_abc1234000000007'],
    matched_amount: amount, reason, residual: 0, state: 'balanced', created_at: '2026-04-01T12:00:00.000Z', reversed_at: reversedAt,
  }
}

export function packLine(number: number, amount: number, fields: { reference?: string | null; description?: string | null; match?: Record<string, unknown> | null; date?: string; entries?: readonly LineEntry[] } = {}): PackLine {
  const match = fields.match ?? null
  return {
    line: { id: `l${number}`, date: fields.date ?? '2026-03-10', amount, reference: fields.reference ?? null, description: fields.description ?? null, match: match === null ? null : match.id },
    match,
    entries: fields.entries ?? [],
  }
}

export function lineEntry(id: string, amount: number | null, description: string | null, effectiveDate = '2026-03-10'): LineEntry {
  return { id, effective_at: `${effectiveDate}T09:00:00.000Z`, effective_date: effectiveDate, amount, description }
}

export function packHistoryEvent(type: string, at: string, state: string, residual: number, detail: Record<string, unknown> = {}): Record<string, unknown> {
  return { type, at, key_id: 'key_abcdef01234567', state, residual, ...detail }
}

/** A small closed window: two lines matched 1:1, two written off together, one reversed match, four history events. */
export function samplePack(): PackContent {
  const sale = packMatch('mat_abc1234000000001', 'amount_and_date', ['l1'], 150000, null)
  const writeOff = packMatch('mat_abc1234000000002', 'write_off', ['l3', 'l4'], 1010, '@bank charges, see letter')
  const reversed = packMatch('mat_abc1234000000003', 'manual', ['l2'], 10000, null, '2026-04-01T13:00:00.000Z')
  const other = packMatch('mat_abc1234000000004', 'amount_and_date', ['l2'], 10000, null)
  return {
    head: packHead(),
    lines: [
      packLine(1, 150000, { reference: 'INV-1', description: 'Invoice, "one"', match: sale, entries: [lineEntry('ent_abc1234000000007', 100000, 'first half'), lineEntry('ent_abc1234000000008', 50000, null, '2026-03-11')] }),
      packLine(2, 10000, { reference: '=cmd|calc', description: '-refund', match: other, date: '2026-03-11' }),
      packLine(3, 1000, { reference: null, description: 'fee', match: writeOff, date: '2026-03-30' }),
      packLine(4, 10, { reference: null, description: null, match: writeOff, date: '2026-03-31' }),
    ],
    matches: [sale, reversed, other, writeOff],
    history: [
      packHistoryEvent('opened', '2026-04-01T08:00:00.000Z', 'open', 161010),
      packHistoryEvent('lines_added', '2026-04-01T08:01:00.000Z', 'open', 161010, { count: 4 }),
      packHistoryEvent('matched', '2026-04-01T12:00:00.000Z', 'balanced', 0, { match: 'mat_abc1234000000001' }),
      packHistoryEvent('closed', '2026-04-02T09:30:00.000Z', 'closed', 0, { reason: 'all matched', seal: sealHex }),
    ],
  }
}

type Item = { readonly section: SectionName } | { readonly line: PackLine } | { readonly match: Record<string, unknown> } | { readonly history: Record<string, unknown> }

/**
 * Feeds the pack to `writer` in pages of at most `itemsPerPage` items (section starts not counted), the head on
 * the first, end() after the last, as PackSource does; returns the chunk taken after each page.
 */
export function writePack(writer: PackWriter, pack: PackContent, itemsPerPage: number): Chunk[] {
  const items: Item[] = [
    { section: 'lines' }, ...pack.lines.map((line) => ({ line })),
    { section: 'matches' }, ...pack.matches.map((match) => ({ match })),
    { section: 'history' }, ...pack.history.map((history) => ({ history })),
  ]
  const chunks: Chunk[] = []
  let at = 0
  writer.begin(pack.head)
  while (at < items.length) {
    let budget = itemsPerPage
    for (; at < items.length && (budget > 0 || 'section' in items[at]); at++) {
      const item = items[at]
      if ('section' in item) writer.section(item.section)
      else if ('line' in item) { writer.line(item.line); budget-- }
      else if ('match' in item) { writer.match(item.match); budget-- }
      else { writer.historyEvent(item.history); budget-- }
    }
    if (at === items.length) writer.end()
    chunks.push(writer.take())
  }
  return chunks
}

/** The chunks as one UTF-8 text (the JSON and CSV forms write strings). */
export function chunksText(chunks: readonly Chunk[]): string {
  return chunks.map((chunk) => (typeof chunk === 'string' ? chunk : chunk.toString('utf8'))).join('')
}
