/**
 * @module The statement formats, one descriptor each, in one list: every place that names a format (the
 * `?format=` values, the media types a route takes and the OpenAPI document lists, detection, the reader
 * run, the embedded Ledger's `format`) derives from it. A new format is its reader file, which exports
 * its descriptor, plus one line here (test/statements/formats.test.ts holds every other place to it).
 */
import { bai2Format } from './bai2.ts'
import { camt053Format } from './camt053.ts'
import { mt940Format } from './mt940.ts'
import type { ReadResult } from './types.ts'

/** A media type that names the format, with what the OpenAPI document says of it. */
export interface FormatMediaType {
  readonly mediaType: string
  readonly description: string
}

/** What the rest of the service knows of a format. */
export interface StatementFormatDescriptor<Name extends string = string> {
  /** Its `?format=` value, and a statement's `format`. */
  readonly name: Name
  /** As messages name it: `camt.053`. */
  readonly title: string
  /** The Content-Types that name it (parameters such as `; charset=utf-8` aside), in lower case. */
  readonly mediaTypes: readonly FormatMediaType[]
  /** What sniff looks for, as docs/API.md says it (`01,`). */
  readonly signature: string
  /**
   * Whether a file's first characters look like this format: `head` is up to 4,096 of them decoded as
   * Latin-1, a byte-order mark and leading blanks removed (detect.ts). The first descriptor that says yes wins.
   */
  sniff(head: string): boolean
  /** The reader: never throws on bad input (statement_invalid saying where). */
  read(bytes: Uint8Array): ReadResult
}

/** The formats, in the order detection tries them and the `?format=` values list them. */
export const statementFormats = [camt053Format, mt940Format, bai2Format] as const

export type StatementFormat = (typeof statementFormats)[number]['name']

export const statementFormatNames: readonly StatementFormat[] = statementFormats.map((format) => format.name)

/** The descriptor of a format name. */
export function formatNamed(name: StatementFormat): StatementFormatDescriptor<StatementFormat> {
  return statementFormats.find((format) => format.name === name)!
}

/** The formats' titles as a sentence names them: `camt.053, MT940 or BAI2`. */
export function formatTitles(conjunction: string): string {
  const titles = statementFormats.map((format) => format.title)
  return titles.length === 1 ? titles[0] : `${titles.slice(0, -1).join(', ')} ${conjunction} ${titles[titles.length - 1]}`
}
