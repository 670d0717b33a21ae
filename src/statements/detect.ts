/** @module Which statement format a file is: from `?format=`, else Content-Type, else the content (docs/API.md, Bank statement formats). */
import type { StatementFormat } from './types.ts'

const formatsByMediaType: Readonly<Record<string, StatementFormat>> = {
  'application/xml': 'camt053',
  'text/xml': 'camt053',
  'application/x-mt940': 'mt940',
  'application/x-bai2': 'bai2',
}

export function isStatementFormat(value: string): value is StatementFormat {
  return value === 'camt053' || value === 'mt940' || value === 'bai2'
}

/** The format Content-Type names (parameters such as `; charset=utf-8` ignored), or null. */
export function formatOfContentType(contentType: string | null | undefined): StatementFormat | null {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase()
  return formatsByMediaType[mediaType] ?? null
}

/**
 * The format the content looks like, from its first bytes: XML starts with `<` (after a BOM, blanks or an
 * XML declaration); BAI2 with its file header record `01,`; MT940 with a SWIFT block `{1:`, a `:20:` field,
 * or a bank's header lines before its first `:20:`. Null when none fits.
 */
export function formatOfContent(bytes: Uint8Array): StatementFormat | null {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 4096)).replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '').trimStart()
  if (head.startsWith('<')) return 'camt053'
  if (head.startsWith('01,')) return 'bai2'
  if (head.startsWith('{1:') || head.startsWith(':20:') || /(^|\r?\n):20:/.test(head)) return 'mt940'
  return null
}

/** `?format=` wins, then Content-Type, then the content. */
export function detectFormat(bytes: Uint8Array, contentType?: string | null, formatOverride?: StatementFormat | null): StatementFormat | null {
  return formatOverride ?? formatOfContentType(contentType) ?? formatOfContent(bytes)
}
