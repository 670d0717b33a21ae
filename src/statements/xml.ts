/** @module Safe XML parsing for statement files: no DTD, no entity expansion, element access by XML path. */
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { quoted } from './text.ts'
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
  checkReferences(text)
  try {
    // A parser a call: no state shared between files.
    return new XMLParser(parserOptions).parse(text) as Record<string, unknown>
  } catch (error) {
    // The validator passed, so what the parser still refuses is the input (nesting deeper than it allows).
    throw new FileProblem('/', `XML the parser refuses: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/**
 * Every `&` starts one of the five predefined entities or a character reference to a character XML
 * allows (XML 1.0, "Char": tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF). Without a DTD
 * any other entity is undeclared, and the document not well-formed (XML 1.0, "Entity Declared"); the
 * validator lets both through. Controls XML allows (CR, DEL, C1) are refused later, by field (limits.ts).
 */
function checkReferences(text: string): void {
  // Inside CDATA and comments `&` is text: blanked out, line breaks kept so lines still count.
  const markup = text.includes('<![CDATA[') || text.includes('<!--') ? text.replace(/<!\[CDATA\[[\s\S]*?\]\]>|<!--[\s\S]*?-->/g, (section) => section.replace(/[^\n]/g, ' ')) : text
  for (const match of markup.matchAll(/&(#x[0-9a-fA-F]+|#\d+|[^;&<\s]*)(;?)/g)) {
    const [whole, name, semicolon] = match
    const where = (): string => `line ${lineAt(text, match.index)}`
    if (semicolon === '' || !name.startsWith('#')) {
      if (semicolon !== '' && Object.hasOwn(predefined, name)) continue
      throw new FileProblem(where(), `undeclared entity ${quoted(whole.slice(0, 40))}: a statement file has no DTD, so only &lt; &gt; &amp; &quot; &apos; and character references`)
    }
    const codePoint = name.startsWith('#x') ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
    if (!isXmlChar(codePoint)) throw new FileProblem(where(), `${quoted(whole.slice(0, 40))} is not a character XML allows${codePoint >= 0xd800 && codePoint <= 0xdfff ? ' (a surrogate: one half of a UTF-16 pair, no character of its own)' : ''}`)
  }
}

function isXmlChar(codePoint: number): boolean {
  if (codePoint === 0x9 || codePoint === 0xa || codePoint === 0xd) return true
  return (codePoint >= 0x20 && codePoint <= 0xd7ff) || (codePoint >= 0xe000 && codePoint <= 0xfffd) || (codePoint >= 0x10000 && codePoint <= 0x10ffff)
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

/**
 * The five predefined entities and character references: all XML has without a DTD, none of them expands
 * (checkReferences has refused anything else). A line break written as such is the file's layout (a long
 * text wrapped, indented): it reads as one space; one written as a reference (`&#13;`) is content.
 */
function decodeEntities(text: string): string {
  const unwrapped = text.includes('\n') || text.includes('\r') ? text.replace(/[ \t]*[\r\n][\s]*/g, ' ') : text
  if (!unwrapped.includes('&')) return unwrapped
  return unwrapped.replace(/&(#x[0-9a-fA-F]+|#\d+|lt|gt|amp|quot|apos);/g, (_whole, name: string) => {
    if (!name.startsWith('#')) return predefined[name]
    return String.fromCodePoint(name.startsWith('#x') ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10))
  })
}
