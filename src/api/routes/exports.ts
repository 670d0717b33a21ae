/** @module Export routes (docs/API.md, Exports): a window's audit pack as JSON, CSV or PDF, and the entries as CSV, both streamed in pages. */

import { Type } from 'typebox'
import { EntriesCsvSource, entriesPage } from '../../exports/entries-csv.js'
import { CsvPackWriter } from '../../exports/pack-csv.js'
import { JsonPackWriter } from '../../exports/pack-json.js'
import { PdfPackWriter } from '../../exports/pack-pdf.js'
import { firstPackPage, PackSource, type PackWriter } from '../../exports/pack.js'
import { pageLimitMax } from '../../ledger/pages.js'
import { enumQuery, textQuery, timestampQuery } from '../query.js'
import { v2Route, type V2Route } from '../route.js'
import { auditPack } from '../schemas/responses.js'
import { StreamedAnswer } from '../streamed-answer.js'

const packFormats = ['json', 'csv', 'pdf'] as const
type PackFormat = (typeof packFormats)[number]
const packFormatQuery = enumQuery('format', packFormats, 'json (default), csv or pdf')
const entriesFormatQuery = enumQuery('format', ['csv'] as const, 'csv (the default and only format)')

const mediaTypes: Record<PackFormat, string> = { json: 'application/json', csv: 'text/csv; charset=utf-8', pdf: 'application/pdf' }
const writers: Record<PackFormat, () => PackWriter> = { json: () => new JsonPackWriter(), csv: () => new CsvPackWriter(), pdf: () => new PdfPackWriter() }

/** Ids are `rec_` and base 36; anything else never reaches a filename, so no quoting is needed. */
function disposition(name: string, format: string): readonly [string, string] {
  return ['Content-Disposition', `attachment; filename="${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.${format}"`]
}

const entriesQuery = {
  account: textQuery('account', 'Entries with a line on this account (name or id)'),
  from: timestampQuery('from', 'effective_at at or after this instant'),
  to: timestampQuery('to', 'effective_at before this instant'),
}

export const exportRoutes: V2Route[] = [
  v2Route({
    method: 'GET', pattern: '/v2/reconciliations/:id/export', scope: 'recon:read', summary: 'The audit pack of a window: JSON, CSV or PDF, streamed',
    query: [packFormatQuery],
    errors: ['request_invalid', 'not_found'],
    response: {
      status: 200, description: 'The pack as an attachment named <id>.<format> (docs/API.md, "Exports")', schema: auditPack, mediaType: 'application/json, text/csv, application/pdf',
      content: {
        'application/json': auditPack,
        'text/csv': Type.String({ description: 'The lines with their match: RFC 4180, UTF-8 with a BOM' }),
        'application/pdf': Type.String({ contentMediaType: 'application/pdf', description: 'A printable report of the same' }),
      },
    },
    handle: ({ key, params, query, workspace, atMs }) => {
      const chosen = query.format ?? 'json'
      return {
        streamed: async (shard) => {
          const request = { shard, workspace: workspace.id, window: params.id, visibility: key.accounts, atMs }
          const writer = writers[chosen]()
          const { reply, page } = await firstPackPage(request, writer)
          if (page === null) return reply
          const window = (page.head!.window as { id: string }).id
          return new StreamedAnswer(200, mediaTypes[chosen], [disposition(window, chosen)], new PackSource(request, writer, page))
        },
      }
    },
  }),
  v2Route({
    method: 'GET', pattern: '/v2/entries/export', scope: 'entries:read', summary: 'Entries as CSV, one row per entry line, streamed in pages',
    query: [entriesFormatQuery, entriesQuery.account, entriesQuery.from, entriesQuery.to],
    errors: ['request_invalid', 'account_unknown'],
    response: { status: 200, description: 'CSV (RFC 4180, UTF-8) as an attachment named entries.csv, in the order of GET /v2/entries', schema: Type.String(), mediaType: 'text/csv' },
    handle: ({ key, query, workspace }) => {
      // format has one value (csv), so it is only checked.
      const list = { account: query.account, reconciliation: null, fromMs: query.from, toMs: query.to, limit: pageLimitMax, cursor: null }
      return {
        streamed: async (shard) => {
          const request = { shard, workspace: workspace.id, query: list, visibility: key.accounts }
          // The first page answers the query's own errors (an unknown account) before anything is streamed.
          const { reply, page } = await entriesPage(request, null)
          if (page === null) return reply
          return new StreamedAnswer(200, mediaTypes.csv, [disposition('entries', 'csv')], new EntriesCsvSource(request, page))
        },
      }
    },
  }),
]
