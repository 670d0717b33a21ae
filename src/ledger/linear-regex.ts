/**
 * @module Regular expressions in linear time (docs/API.md, Matching rules): a small Thompson-NFA engine
 * for the patterns of matching rules. V8's own engine backtracks, so a pattern such as `(a+)+$` can take
 * exponential time on a short text and stall the actor; this one keeps the set of states it is in and
 * reads each character once, so a test costs at most (text length × program size) steps. It accepts the
 * common syntax (literals, `.`, classes, `\d \w \s` and their negations, `^ $`, groups, `|`, `* + ?
 * {n} {n,} {n,m}`, lazy forms read as greedy) and refuses, with a reason, what needs backtracking
 * (backreferences, lookaround) or that it does not implement (named groups, `\b`, `\p{…}`, flags).
 */

export const regexPatternLengthMax = 256
/** States of a compiled program at most: bounds a test's cost per character (a counted repeat is copied out). */
export const regexProgramStatesMax = 1_000
/** The largest count of a `{n,m}` repeat. */
export const regexRepeatCountMax = 100

type CharTest = (code: number) => boolean

/** One NFA state: a character test, a fork, an anchor, or the end. `out` and `alt` are state indexes (−1: not yet patched). */
interface State {
  readonly kind: 'char' | 'split' | 'bol' | 'eol' | 'match'
  readonly test: CharTest | null
  out: number
  alt: number
}

const kindChar = 0
const kindSplit = 1
const kindBol = 2
const kindEol = 3
const kindMatch = 4
const kindCodes: Readonly<Record<State['kind'], number>> = { char: kindChar, split: kindSplit, bol: kindBol, eol: kindEol, match: kindMatch }

/** Sets of states a compiled pattern caches at most (with their moves). */
const dfaStatesMax = 1_000

/** A set of character states, whether it holds the end, and where each character read in it leads (filled as met). */
interface DfaNode {
  readonly states: Int32Array
  readonly matched: boolean
  readonly ascii: (DfaNode | undefined)[]
  readonly moves: Map<number, DfaNode>
}

/** Moves on these character codes are kept in an array, the rest in a map. */
const asciiCount = 128


/** A compiled pattern: test(text) in O(text length × states). The states in typed arrays, so a step allocates nothing. */
export class LinearRegex {
  readonly #kinds: Uint8Array
  readonly #outs: Int32Array
  readonly #alts: Int32Array
  readonly #tests: readonly (CharTest | null)[]
  readonly #start: number
  readonly #current: Int32Array
  readonly #dfa = new Map<string, DfaNode>()
  /** Where every move that reaches the end leads: the text matches. */
  readonly #matchedNode: DfaNode = { states: new Int32Array(0), matched: true, ascii: [], moves: new Map() }
  readonly #mark: Int32Array
  readonly #stack: Int32Array
  #generation = 0
  /**
   * Work done by every test so far: one per character read, plus one per state visited where the cache
   * did not know the move. Tests read it to check the cost is linear in the text, whatever the pattern.
   */
  steps = 0

  constructor(states: readonly State[], start: number) {
    this.#kinds = Uint8Array.from(states, (state) => kindCodes[state.kind])
    this.#outs = Int32Array.from(states, (state) => state.out)
    this.#alts = Int32Array.from(states, (state) => state.alt)
    this.#tests = states.map((state) => state.test)
    this.#start = start
    this.#current = new Int32Array(states.length)
    this.#mark = new Int32Array(states.length)
    // Each state is pushed at most twice per closure (once per way into it is not possible: marks stop it), so twice the states bounds the stack.
    this.#stack = new Int32Array(states.length * 2 + 2)
  }

  /**
   * Whether some part of the text matches (a search, as RegExp.prototype.test without flags). The sets of
   * states met between the first and the last character are cached with their moves by character (a DFA
   * built lazily, as RE2 does), so a text costs one lookup per character once its sets are known; past
   * dfaStatesMax sets the cache starts again, and the cost stays linear either way.
   */
  test(text: string): boolean {
    const length = text.length
    // The first set is specific to position 0 (^ holds there), so it is not cached.
    this.#generation++
    let node = this.#node(this.#follow(this.#current, 0, this.#start, 0, length))
    for (let position = 0; position < length; position++) {
      if (node.matched) return true
      this.steps++
      let code = text.charCodeAt(position)
      // A surrogate pair is one character: read both halves (positions count UTF-16 units, as `length` does).
      if (code >= 0xd800 && code <= 0xdbff && position + 1 < length) {
        const low = text.charCodeAt(position + 1)
        if (low >= 0xdc00 && low <= 0xdfff) code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00), position++
      }
      // The last move is specific to the end ($ holds there), so it is not cached either.
      if (position + 1 === length || position === 0) node = this.#node(this.#move(node.states, code, position + 1, length))
      else node = (code < asciiCount ? node.ascii[code] : node.moves.get(code)) ?? this.#learn(node, code, position + 1, length)
    }
    return node.matched
  }

  /** States of the program: a test reads at most about three times this many per character. */
  get size(): number {
    return this.#kinds.length
  }

  #learn(node: DfaNode, code: number, position: number, length: number): DfaNode {
    const next = this.#cached(this.#move(node.states, code, position, length))
    if (code < asciiCount) node.ascii[code] = next
    else node.moves.set(code, next)
    return next
  }

  /** The set after reading `code`: the states whose test it passes, followed, and a new start (the search is unanchored). */
  #move(states: Int32Array, code: number, position: number, length: number): number {
    this.#generation++
    let count = 0
    for (let index = 0; index < states.length && count >= 0; index++) {
      const state = states[index]
      this.steps++
      if (this.#tests[state]!(code)) count = this.#follow(this.#current, count, this.#outs[state], position, length)
    }
    return count < 0 ? count : this.#follow(this.#current, count, this.#start, position, length)
  }

  /** The node of the set just built in #current (count −1: the set holds the end). */
  #node(count: number): DfaNode {
    return count < 0 ? this.#matchedNode : { states: this.#current.slice(0, count), matched: false, ascii: [], moves: new Map() }
  }

  #cached(count: number): DfaNode {
    if (count < 0) return this.#matchedNode
    const states = this.#current.slice(0, count).sort()
    const key = states.join(',')
    const found = this.#dfa.get(key)
    if (found !== undefined) return found
    if (this.#dfa.size >= dfaStatesMax) this.#dfa.clear()
    const node: DfaNode = { states, matched: false, ascii: [], moves: new Map() }
    this.#dfa.set(key, node)
    return node
  }

  /**
   * Adds to the set the character states reachable from `from` without reading a character (anchors checked
   * at `position`), each once per generation; −1 once the end state is reached (the text matches).
   */
  #follow(set: Int32Array, count: number, from: number, position: number, length: number): number {
    const stack = this.#stack
    const mark = this.#generation
    let top = 0
    stack[top++] = from
    while (top > 0) {
      const index = stack[--top]
      this.steps++
      if (index < 0 || this.#mark[index] === mark) continue
      this.#mark[index] = mark
      switch (this.#kinds[index]) {
        case kindSplit: stack[top++] = this.#alts[index]; stack[top++] = this.#outs[index]; break
        case kindBol: if (position === 0) stack[top++] = this.#outs[index]; break
        case kindEol: if (position === length) stack[top++] = this.#outs[index]; break
        case kindMatch: return -1
        default: set[count++] = index
      }
    }
    return count
  }
}

/** Compiles a pattern, or says why it is refused. */
export function compileLinearRegex(pattern: string): LinearRegex | { readonly problem: string } {
  if (pattern.length > regexPatternLengthMax) return { problem: `longer than ${regexPatternLengthMax} characters` }
  try {
    const builder = new Builder(pattern)
    const fragment = builder.alternation()
    if (builder.position < pattern.length) throw new RefusedPattern(`unbalanced ) at ${builder.position}`)
    const end = builder.state('match', null)
    builder.patch(fragment.outs, end)
    return new LinearRegex(builder.states, fragment.start)
  } catch (error) {
    if (error instanceof RefusedPattern) return { problem: error.message }
    throw error
  }
}

class RefusedPattern extends Error {}

/** A piece of program: its entry state and the dangling exits to patch to whatever follows. */
interface Fragment {
  readonly start: number
  readonly outs: readonly Exit[]
}

/** A state's `out` or `alt` not yet pointing anywhere. */
interface Exit {
  readonly state: number
  readonly field: 'out' | 'alt'
}

/** A parsed atom, kept as a function that emits it, so that a counted repeat can emit it again. */
type Emit = () => Fragment

const digit: CharTest = (code) => code >= 48 && code <= 57
const word: CharTest = (code) => digit(code) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95
const space: CharTest = (code) => code === 32 || (code >= 9 && code <= 13) || code === 0xa0 || code === 0xfeff || code === 0x2028 || code === 0x2029 || (code >= 0x2000 && code <= 0x200a) || code === 0x1680 || code === 0x202f || code === 0x205f || code === 0x3000
const lineTerminator: CharTest = (code) => code === 10 || code === 13 || code === 0x2028 || code === 0x2029
const classEscapes: Readonly<Record<string, CharTest>> = {
  d: digit, D: (code) => !digit(code), w: word, W: (code) => !word(code), s: space, S: (code) => !space(code),
}
const controlEscapes: Readonly<Record<string, number>> = { t: 9, n: 10, r: 13, f: 12, v: 11, '0': 0 }

/** Recursive descent over the pattern, emitting states as it goes (Thompson's construction). */
class Builder {
  readonly states: State[] = []
  position = 0
  readonly #pattern: string
  #depth = 0

  constructor(pattern: string) {
    this.#pattern = pattern
  }

  state(kind: State['kind'], test: CharTest | null): number {
    if (this.states.length >= regexProgramStatesMax) throw new RefusedPattern(`compiles to more than ${regexProgramStatesMax} states`)
    this.states.push({ kind, test, out: -1, alt: -1 })
    return this.states.length - 1
  }

  patch(outs: readonly Exit[], to: number): void {
    for (const exit of outs) this.states[exit.state][exit.field] = to
  }

  alternation(): Fragment {
    let left = this.#sequence()
    while (this.#peek() === '|') {
      this.position++
      const right = this.#sequence()
      const split = this.state('split', null)
      this.states[split].out = left.start
      this.states[split].alt = right.start
      left = { start: split, outs: [...left.outs, ...right.outs] }
    }
    return left
  }

  #sequence(): Fragment {
    let whole: Fragment | null = null
    while (this.position < this.#pattern.length && this.#peek() !== '|' && this.#peek() !== ')') {
      const piece = this.#repeat(this.#atom())
      if (whole === null) whole = piece
      else {
        this.patch(whole.outs, piece.start)
        whole = { start: whole.start, outs: piece.outs }
      }
    }
    return whole ?? this.#empty()
  }

  /** A state that reads nothing: a split whose two ways lead to the same place. */
  #empty(): Fragment {
    const split = this.state('split', null)
    return { start: split, outs: [{ state: split, field: 'out' }, { state: split, field: 'alt' }] }
  }

  #repeat(emit: Emit): Fragment {
    const bounds = this.#quantifier()
    if (bounds === null) return emit()
    if (this.#peek() === '?') this.position++
    if (this.#peek() === '*' || this.#peek() === '+' || this.#peek() === '?' || this.#peek() === '{') throw new RefusedPattern(`a quantifier follows a quantifier at ${this.position}`)
    const parts: Fragment[] = []
    for (let count = 0; count < bounds.min; count++) parts.push(emit())
    if (bounds.max === null) parts.push(this.#star(emit))
    else for (let count = bounds.min; count < bounds.max; count++) parts.push(this.#optional(emit()))
    if (parts.length === 0) return this.#empty()
    for (let index = 1; index < parts.length; index++) this.patch(parts[index - 1].outs, parts[index].start)
    return { start: parts[0].start, outs: parts[parts.length - 1].outs }
  }

  #star(emit: Emit): Fragment {
    const split = this.state('split', null)
    const body = emit()
    this.states[split].out = body.start
    this.patch(body.outs, split)
    return { start: split, outs: [{ state: split, field: 'alt' }] }
  }

  #optional(body: Fragment): Fragment {
    const split = this.state('split', null)
    this.states[split].out = body.start
    return { start: split, outs: [...body.outs, { state: split, field: 'alt' }] }
  }

  #quantifier(): { min: number; max: number | null } | null {
    const char = this.#peek()
    if (char === '*' || char === '+' || char === '?') {
      this.position++
      return char === '*' ? { min: 0, max: null } : char === '+' ? { min: 1, max: null } : { min: 0, max: 1 }
    }
    if (char !== '{') return null
    const found = /^\{(\d{1,3})(,(\d{0,3}))?\}/.exec(this.#pattern.slice(this.position))
    if (found === null) throw new RefusedPattern(`a { at ${this.position} that is not a counted repeat {n}, {n,} or {n,m} (escape it as \\{)`)
    this.position += found[0].length
    const min = Number(found[1])
    const max = found[2] === undefined ? min : found[3] === '' ? null : Number(found[3])
    if (min > regexRepeatCountMax || (max !== null && (max > regexRepeatCountMax || max < min))) throw new RefusedPattern(`a counted repeat must be within 0..${regexRepeatCountMax}, n ≤ m`)
    return { min, max }
  }

  /** Reads one atom and returns how to emit it (a group is re-parsed from its start for each copy). */
  #atom(): Emit {
    const start = this.position
    const char = this.#pattern[this.position++]
    if (char === '(') return this.#group(start)
    if (char === '*' || char === '+' || char === '?' || char === '{') throw new RefusedPattern(`nothing to repeat at ${start}`)
    if (char === '^' || char === '$') return () => this.#anchor(char === '^' ? 'bol' : 'eol')
    if (char === '.') return this.#charEmit((code) => !lineTerminator(code))
    if (char === '[') return this.#charEmit(this.#characterClass())
    if (char === '\\') return this.#charEmit(this.#escape())
    this.position = start
    const code = this.#pattern.codePointAt(start)!
    this.position += code > 0xffff ? 2 : 1
    return this.#charEmit((other) => other === code)
  }

  #anchor(kind: 'bol' | 'eol'): Fragment {
    const index = this.state(kind, null)
    return { start: index, outs: [{ state: index, field: 'out' }] }
  }

  #charEmit(test: CharTest): Emit {
    return () => {
      const index = this.state('char', test)
      return { start: index, outs: [{ state: index, field: 'out' }] }
    }
  }

  #group(start: number): Emit {
    if (this.#pattern.startsWith('?:', this.position)) this.position += 2
    else if (this.#peek() === '?') throw new RefusedPattern(`lookaround and named groups are not supported (at ${start})`)
    if (++this.#depth > 32) throw new RefusedPattern('groups nested more than 32 deep')
    const bodyStart = this.position
    this.alternation()
    if (this.#peek() !== ')') throw new RefusedPattern(`unclosed ( at ${start}`)
    this.position++
    this.#depth--
    // The first parse emitted a copy nobody links to; each use parses the body again from its start.
    return () => {
      const resume = this.position
      this.position = bodyStart
      const fragment = this.alternation()
      this.position = resume
      return fragment
    }
  }

  #escape(): CharTest {
    const char = this.#pattern[this.position++]
    if (char === undefined) throw new RefusedPattern('the pattern ends with \\')
    const named = classEscapes[char]
    if (named !== undefined) return named
    const control = controlEscapes[char]
    if (control !== undefined && !(char === '0' && /[0-9]/.test(this.#peek() ?? ''))) return (code) => code === control
    if (/[1-9]/.test(char)) throw new RefusedPattern(`backreferences are not supported (\\${char} at ${this.position - 2})`)
    if (/[A-Za-z0-9]/.test(char)) throw new RefusedPattern(`\\${char} is not supported (at ${this.position - 2})`)
    const code = char.codePointAt(0)!
    return (other) => other === code
  }

  #characterClass(): CharTest {
    const negated = this.#peek() === '^'
    if (negated) this.position++
    const tests: CharTest[] = []
    let first = true
    while (this.#peek() !== ']' || first) {
      if (this.position >= this.#pattern.length) throw new RefusedPattern('unclosed [')
      first = false
      const low = this.#classAtom()
      if (this.#peek() === '-' && this.#pattern[this.position + 1] !== ']' && this.position + 1 < this.#pattern.length && typeof low === 'number') {
        this.position++
        const high = this.#classAtom()
        if (typeof high !== 'number' || high < low) throw new RefusedPattern(`a bad range in a class at ${this.position}`)
        tests.push((code) => code >= low && code <= high)
      } else tests.push(typeof low === 'number' ? (code) => code === low : low)
    }
    this.position++
    return (code) => tests.some((test) => test(code)) !== negated
  }

  /** A class member: one code point, or a class escape's test (inside a class, \b is the backspace). */
  #classAtom(): number | CharTest {
    if (this.#peek() !== '\\') {
      const code = this.#pattern.codePointAt(this.position)!
      this.position += code > 0xffff ? 2 : 1
      return code
    }
    const char = this.#pattern[++this.position]
    this.position++
    if (char === undefined) throw new RefusedPattern('the pattern ends with \\')
    if (char in classEscapes) return classEscapes[char]
    if (char in controlEscapes) return controlEscapes[char]
    if (char === 'b') return 8
    if (/[A-Za-z0-9]/.test(char)) throw new RefusedPattern(`\\${char} is not supported (at ${this.position - 2})`)
    return char.codePointAt(0)!
  }

  #peek(): string | undefined {
    return this.#pattern[this.position]
  }
}
