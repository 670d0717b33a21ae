/** @module Safe XML parsing for statement files: no DTD, no entity expansion, element access by XML path. */
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { FileProblem } from './types.ts'

/** A parsed element: fast-xml-parser gives a string for a leaf, an object otherwise (attributes under `@_`). */
export type XmlNode = string | { readonly [name: string]: unknown }

const parserOptions = {
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  // Amounts stay text, so they convert to minor units exactly; entities are never expanded (see parseXml).
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: false,
  trimValues: true,
  // No path strings built for callbacks we do not use: a third of the parse time on a 10,000-entry file.
  jPath: false,
} as const

/**
 * Refuses any DTD before parsing: a camt.053 never has one, and a DOCTYPE is how an XML bomb (billion
 * laughs) or an external entity gets in. So nothing is ever expanded, and the refusal costs one scan.
 */
export function parseXml(text: string): Record<string, unknown> {
  const doctype = /<!(DOCTYPE|ENTITY)/i.exec(text)
  if (doctype !== null) throw new FileProblem(`line ${lineAt(text, doctype.index)}`, `a statement file may not declare a ${doctype[1].toUpperCase()}: entities are not expanded`)
  const valid = XMLValidator.validate(text)
  if (valid !== true) {
    // The validator reports elements left open at the end (a truncated file) as a list, at line 1.
    const open = /^Invalid '\[(.*)\]' found/s.exec(valid.err.msg)
    if (open !== null) throw new FileProblem(`line ${lineAt(text, text.length)}`, `the file ends inside ${open[1].replace(/[\s"]/g, '').replace(/,/g, '/')}: truncated?`)
    throw new FileProblem(`line ${valid.err.line}`, `not well-formed XML: ${valid.err.msg}`)
  }
  try {
    // A parser a call: no state shared between files.
    return new XMLParser(parserOptions).parse(text) as Record<string, unknown>
  } catch (error) {
    // The validator passed, so what the parser still refuses is the input (nesting deeper than it allows).
    throw new FileProblem('/', `XML the parser refuses: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function lineAt(text: string, index: number): number {
  let line = 1
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line += 1
  return line
}

/** The children called `name`, an array whatever the file held: absent, one, or several. */
export function children(node: XmlNode | undefined, name: string): XmlNode[] {
  if (node === undefined || typeof node === 'string') return []
  const value = node[name]
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]) as XmlNode[]
}

export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return children(node, name)[0]
}

/** The first element at `names` below `node`, as decoded text, or null. */
export function textAt(node: XmlNode | undefined, ...names: string[]): string | null {
  let current = node
  for (const name of names) current = child(current, name)
  if (current === undefined) return null
  const raw = typeof current === 'string' ? current : current['#text']
  return typeof raw === 'string' || typeof raw === 'number' ? decodeEntities(String(raw)).trim() : null
}

export function attributeOf(node: XmlNode | undefined, name: string): string | null {
  if (node === undefined || typeof node === 'string') return null
  const value = node[`@_${name}`]
  return typeof value === 'string' ? decodeEntities(value) : null
}

const predefined: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: '\'' }

/** The five predefined entities and character references: all XML has without a DTD, none of them expands. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (whole, name: string) => {
    if (!name.startsWith('#')) return predefined[name]
    const codePoint = name.startsWith('#x') ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole
  })
}
