/**
 * @module README's shell blocks and the output each shows, read from its Markdown source by the rules
 * written there (an HTML comment at the start of "A walk-through with curl"):
 * - every ```sh or ```bash block runs, unless the line before it is `<!-- walkthrough: skip … -->`;
 * - `<!-- walkthrough: server … -->` marks the block that starts the service (the test starts it itself);
 * - a ```json or ```text block right after a shell block (blank lines between at most) is what it prints;
 *   a runnable block without one prints nothing;
 * - in shown output, `…` stands for any text within one line (ids, keys, times that differ per run).
 */

export type BlockKind = 'run' | 'skip' | 'server'

export interface ShellBlock {
  readonly kind: BlockKind
  /** 1-based line of the opening fence in README.md, for messages. */
  readonly line: number
  readonly script: string
  /** The output block that follows, or null when none does. */
  readonly expected: string | null
}

interface Fence {
  readonly language: string
  readonly line: number
  readonly body: string
  /** The last non-blank line before the fence. */
  readonly before: string
  /** Only blank lines separate it from the previous fence. */
  readonly adjacent: boolean
}

const markerPattern = /^<!--\s*walkthrough:\s*(skip|server)\b.*-->$/

function fencesOf(markdown: string): Fence[] {
  const lines = markdown.split('\n')
  const fences: Fence[] = []
  let before = ''
  let textSinceFence = true
  for (let index = 0; index < lines.length; index++) {
    const opening = /^```(\w*)\s*$/.exec(lines[index])
    if (opening === null) {
      if (lines[index].trim() !== '') {
        before = lines[index].trim()
        textSinceFence = true
      }
      continue
    }
    const start = index
    const body: string[] = []
    for (index++; index < lines.length && !/^```\s*$/.test(lines[index]); index++) body.push(lines[index])
    fences.push({ language: opening[1], line: start + 1, body: body.join('\n'), before, adjacent: !textSinceFence })
    before = ''
    textSinceFence = false
  }
  return fences
}

/** The shell blocks of a Markdown text, in order, each with its kind and the output shown after it. */
export function shellBlocks(markdown: string): ShellBlock[] {
  const fences = fencesOf(markdown)
  const blocks: ShellBlock[] = []
  fences.forEach((fence, index) => {
    if (fence.language !== 'sh' && fence.language !== 'bash') return
    const marker = markerPattern.exec(fence.before)
    const next = fences[index + 1]
    const shown = next !== undefined && next.adjacent && (next.language === 'json' || next.language === 'text')
    blocks.push({ kind: marker === null ? 'run' : marker[1] as BlockKind, line: fence.line, script: fence.body, expected: shown ? next.body : null })
  })
  return blocks
}

function significantLines(text: string): string[] {
  const lines = text.split('\n').map((line) => line.trimEnd())
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
  return lines
}

/** One shown line as a pattern: literal text, with `…` for any run of characters within the line. */
export function linePattern(shown: string): RegExp {
  const literal = shown.split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  return new RegExp(`^${literal.join('.*')}$`)
}

/** Where printed output differs from the shown output, one message per differing line; empty when it matches. */
export function outputDifferences(shown: string, printed: string): string[] {
  const expected = significantLines(shown)
  const actual = significantLines(printed)
  const differences: string[] = []
  for (let index = 0; index < Math.max(expected.length, actual.length); index++) {
    const want = expected[index]
    const got = actual[index]
    if (want !== undefined && got !== undefined && linePattern(want).test(got)) continue
    differences.push(`line ${index + 1}: README shows ${want === undefined ? '(nothing)' : JSON.stringify(want)}, printed ${got === undefined ? '(nothing)' : JSON.stringify(got)}`)
  }
  return differences
}
