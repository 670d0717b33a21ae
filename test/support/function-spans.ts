/**
 * @module Test support: where the functions of a TypeScript source are and how many lines each spans.
 *
 * TypeScript 7 (the `typescript` devDependency) is the native compiler: its package exposes no JavaScript
 * parser, only an unstable API that talks to a spawned tsgo process. So this is a small scanner instead:
 * it blanks out comments, string and template text and regular expressions (keeping line breaks, and the
 * code inside `${…}`), then finds function bodies by their braces:
 * - `=> {`: an arrow function's body;
 * - `) {` or `): ReturnType {` where the word before the `(` is not if/for/while/switch/catch/with:
 *   a function declaration or expression, a method, a getter, a constructor.
 * A function spans from the line of its body's `{` to the line of its matching `}`.
 */

export interface FunctionSpan {
  /** The source line of the body's `{`, trimmed: enough to find the function. */
  readonly header: string
  /** 1-based lines of the opening and closing brace. */
  readonly startLine: number
  readonly endLine: number
  readonly lines: number
}

const regexPrecedingKeywords = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'instanceof', 'yield', 'await'])
const controlKeywords = new Set(['if', 'for', 'while', 'switch', 'catch', 'with'])

/** The source with comments, string and template text and regex bodies replaced by spaces (newlines kept). */
export function maskSource(source: string): string {
  const out = source.split('')
  const blank = (from: number, to: number) => { for (let i = from; i < to; i++) if (out[i] !== '\n') out[i] = ' ' }
  // Template nesting: each entry is the brace depth at which a `${` opened, so its `}` returns to the template.
  const templateBraces: number[] = []
  let braceDepth = 0
  let i = 0
  const resumeTemplate = (): void => {
    // Scans template text from i until its end (`) or an expression (${); blanks the text.
    const start = i
    while (i < source.length) {
      if (source[i] === '\\') { i += 2; continue }
      if (source[i] === '`') { blank(start, i); i++; return }
      if (source[i] === '$' && source[i + 1] === '{') { blank(start, i); templateBraces.push(braceDepth); braceDepth++; i += 2; return }
      i++
    }
    blank(start, i)
  }
  while (i < source.length) {
    const char = source[i]
    const next = source[i + 1]
    if (char === '/' && next === '/') { const end = source.indexOf('\n', i); const stop = end < 0 ? source.length : end; blank(i, stop); i = stop; continue }
    if (char === '/' && next === '*') { const end = source.indexOf('*/', i + 2); const stop = end < 0 ? source.length : end + 2; blank(i, stop); i = stop; continue }
    if (char === '\'' || char === '"') { const stop = stringEnd(source, i); blank(i + 1, stop - 1); i = stop; continue }
    if (char === '`') { i++; resumeTemplate(); continue }
    if (char === '/' && startsRegex(source, i)) { const stop = regexEnd(source, i); blank(i + 1, stop - 1); i = stop; continue }
    if (char === '{') braceDepth++
    if (char === '}') {
      braceDepth--
      if (templateBraces.length > 0 && templateBraces[templateBraces.length - 1] === braceDepth) { templateBraces.pop(); i++; resumeTemplate(); continue }
    }
    i++
  }
  return out.join('')
}

function stringEnd(source: string, start: number): number {
  const quote = source[start]
  let i = start + 1
  while (i < source.length && source[i] !== quote && source[i] !== '\n') i += source[i] === '\\' ? 2 : 1
  return i + 1
}

function regexEnd(source: string, start: number): number {
  let i = start + 1
  let inClass = false
  while (i < source.length && source[i] !== '\n') {
    const char = source[i]
    if (char === '\\') { i += 2; continue }
    if (char === '[') inClass = true
    else if (char === ']') inClass = false
    else if (char === '/' && !inClass) break
    i++
  }
  i++
  while (i < source.length && /[a-z]/.test(source[i])) i++
  return i
}

/** A `/` starts a regex where an expression may start: after an operator, punctuation or a keyword, not after a value. */
function startsRegex(source: string, slash: number): boolean {
  let i = slash - 1
  while (i >= 0 && /\s/.test(source[i])) i--
  if (i < 0) return true
  const before = source[i]
  if (/[A-Za-z0-9_$]/.test(before)) {
    let start = i
    while (start > 0 && /[A-Za-z0-9_$]/.test(source[start - 1])) start--
    return regexPrecedingKeywords.has(source.slice(start, i + 1))
  }
  return '(,=:[!&|?{};+-*%<>~^'.includes(before)
}

/** Matching closers for every opener in masked code, by index. */
function pairsOf(masked: string): Map<number, number> {
  const pairs = new Map<number, number>()
  const stack: number[] = []
  for (let i = 0; i < masked.length; i++) {
    const char = masked[i]
    if (char === '(' || char === '[' || char === '{') stack.push(i)
    else if (char === ')' || char === ']' || char === '}') {
      const open = stack.pop()
      if (open !== undefined) pairs.set(open, i)
    }
  }
  return pairs
}

function skipSpace(masked: string, i: number): number {
  while (i < masked.length && /\s/.test(masked[i])) i++
  return i
}

function wordBefore(masked: string, index: number): string {
  let end = index - 1
  while (end >= 0 && /\s/.test(masked[end])) end--
  let start = end
  while (start >= 0 && /[A-Za-z0-9_$]/.test(masked[start])) start--
  return masked.slice(start + 1, end + 1)
}

/**
 * After `)` and `:`, skips a return type up to the body's `{`. A `{` right after `:`, `|`, `&`, `<`, `,`, `(`
 * or `=>` opens an object type (skipped whole); one after a name, `>`, `]`, `)` or `}` opens the body.
 * Returns the body's index, or -1 when the type ends otherwise (a signature without a body).
 */
function bodyAfterType(masked: string, pairs: Map<number, number>, from: number): number {
  let i = from
  let last = ':'
  while (i < masked.length) {
    const char = masked[i]
    if (/\s/.test(char)) { i++; continue }
    if (char === '{') {
      if (/[A-Za-z0-9_$>\])}]/.test(last)) return i
      i = (pairs.get(i) ?? i) + 1
      last = '}'
      continue
    }
    if (char === '=' && masked[i + 1] === '>') return -1
    // A `}` met here closes the block around a signature without a body (an interface's last method).
    if (char === ';' || char === '=' || char === ',' || char === '}' || char === ')' && !pairs.has(i)) return -1
    if (char === '(' || char === '[') { i = (pairs.get(i) ?? i) + 1; last = ')'; continue }
    last = char
    i++
  }
  return -1
}

const modifiers = new Set(['async', 'static', 'get', 'set', 'public', 'private', 'protected', 'override', 'readonly', 'export', 'default', 'declare', 'abstract'])

/**
 * Whether the `(` at index opens the parameters of a declared function or method (`function f(`, `async
 * #commit(`, `get name(`, `f<T>(`), not of a call such as the `f(x)` of `c ? f(x) : y`: the name (and its
 * modifiers) must begin a statement or member (after `{`, `}`, `;`, `,` or a line break) or follow `function`.
 */
function isDeclarationHead(masked: string, paren: number): boolean {
  let i = paren - 1
  while (i >= 0 && /\s/.test(masked[i])) i--
  if (masked[i] === '>') {
    for (let depth = 0; i >= 0; i--) {
      if (masked[i] === '>') depth++
      else if (masked[i] === '<' && --depth === 0) break
    }
    i--
    while (i >= 0 && /\s/.test(masked[i])) i--
  }
  const name = wordEndingAt(masked, i)
  if (name === '') return false
  if (name === 'function') return true
  i -= name.length
  if (masked[i] === '#') i--
  for (;;) {
    while (i >= 0 && (masked[i] === ' ' || masked[i] === '\t')) i--
    if (i < 0 || masked[i] === '\n') return true
    if (masked[i] === '*') { i--; continue }
    const word = wordEndingAt(masked, i)
    if (word === '') return '{};,'.includes(masked[i])
    if (word === 'function') return true
    if (!modifiers.has(word)) return false
    i -= word.length
  }
}

function wordEndingAt(masked: string, end: number): string {
  let start = end
  while (start >= 0 && /[A-Za-z0-9_$]/.test(masked[start])) start--
  return masked.slice(start + 1, end + 1)
}

/** The body braces of every function in the source. */
function bodyStarts(masked: string, pairs: Map<number, number>): number[] {
  const bodies = new Set<number>()
  for (let i = 0; i < masked.length; i++) {
    if (masked[i] === '=' && masked[i + 1] === '>') {
      const brace = skipSpace(masked, i + 2)
      if (masked[brace] === '{') bodies.add(brace)
      continue
    }
    if (masked[i] !== '(') continue
    const close = pairs.get(i)
    if (close === undefined || controlKeywords.has(wordBefore(masked, i))) continue
    const after = skipSpace(masked, close + 1)
    if (masked[after] === '{') bodies.add(after)
    else if (masked[after] === ':' && isDeclarationHead(masked, i)) {
      const body = bodyAfterType(masked, pairs, after + 1)
      if (body >= 0) bodies.add(body)
    }
  }
  return [...bodies].sort((a, b) => a - b)
}

export function functionSpans(source: string): FunctionSpan[] {
  const masked = maskSource(source)
  const pairs = pairsOf(masked)
  const lineStarts = [0]
  for (let i = 0; i < source.length; i++) if (source[i] === '\n') lineStarts.push(i + 1)
  const lineOf = (index: number) => {
    let low = 0
    let high = lineStarts.length - 1
    while (low < high) {
      const middle = (low + high + 1) >> 1
      if (lineStarts[middle] <= index) low = middle
      else high = middle - 1
    }
    return low + 1
  }
  return bodyStarts(masked, pairs).flatMap((open) => {
    const close = pairs.get(open)
    if (close === undefined) return []
    const startLine = lineOf(open)
    const endLine = lineOf(close)
    const header = source.slice(lineStarts[startLine - 1], source.indexOf('\n', open) < 0 ? source.length : source.indexOf('\n', open)).trim()
    return [{ header, startLine, endLine, lines: endLine - startLine + 1 }]
  })
}
