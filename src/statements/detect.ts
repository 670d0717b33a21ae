/** @module Which statement format a file is: from `?format=`, else Content-Type, else the content (docs/API.md, Bank statement formats), as the formats' descriptors say (formats.ts). */
import { statementFormats, type StatementFormat } from './formats.ts'

const formatsByMediaType: ReadonlyMap<string, StatementFormat> = new Map(statementFormats.flatMap((format) => format.mediaTypes.map(({ mediaType }) => [mediaType, format.name] as const)))
const formatNames: ReadonlySet<string> = new Set(statementFormats.map((format) => format.name))

export function isStatementFormat(value: string): value is StatementFormat {
  return formatNames.has(value)
}

/** The format Content-Type names (parameters such as `; charset=utf-8` ignored), or null. */
export function formatOfContentType(contentType: string | null | undefined): StatementFormat | null {
  const mediaType = (contentType ?? '').split(';')[0].trim().toLowerCase()
  return formatsByMediaType.get(mediaType) ?? null
}

/**
 * The format the content looks like, from its first bytes (each descriptor's sniff, in the list's order):
 * up to 4,096 characters, a byte-order mark and leading blanks removed. Null when none fits.
 */
export function formatOfContent(bytes: Uint8Array): StatementFormat | null {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 4096)).replace(/^\uFEFF|^\u00EF\u00BB\u00BF/, '').trimStart()
  return statementFormats.find((format) => format.sniff(head))?.name ?? null
}

/** `?format=` wins, then Content-Type, then the content. */
export function detectFormat(bytes: Uint8Array, contentType?: string | null, formatOverride?: StatementFormat | null): StatementFormat | null {
  return formatOverride ?? formatOfContentType(contentType) ?? formatOfContent(bytes)
}
