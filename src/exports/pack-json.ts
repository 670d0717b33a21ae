/**
 * @module The audit pack as JSON: the head's fields, then `lines`, `matches` and `history` as arrays,
 * written item by item. The lines carry the fields the seal covers, and the entries matched to each, so
 * docs/API.md's recipe (and scripts/verify-seal.mjs) recomputes a closed window's seal from this file alone.
 */

import type { PackHead, PackLine, PackWriter, SectionName } from './pack.js'

export class JsonPackWriter implements PackWriter {
  #out = ''
  #first = true

  begin(head: PackHead): void {
    const text = JSON.stringify(head)
    // The head object left open: the sections follow as its last members.
    this.#out += text.slice(0, -1)
  }

  section(name: SectionName): void {
    this.#out += `${name === 'lines' ? ',' : '],'}${JSON.stringify(name)}:[`
    this.#first = true
  }

  #item(value: unknown): void {
    this.#out += (this.#first ? '' : ',') + JSON.stringify(value)
    this.#first = false
  }

  /** The sealed fields first (the seal recipe picks them), then the entries matched to the line. */
  line(item: PackLine): void {
    this.#item({ ...item.line, entries: item.entries })
  }

  match(item: Record<string, unknown>): void {
    this.#item(item)
  }

  historyEvent(item: Record<string, unknown>): void {
    this.#item(item)
  }

  end(): void {
    this.#out += ']}\n'
  }

  take(): string {
    const out = this.#out
    this.#out = ''
    return out
  }

  close(): void {
    this.#out = ''
  }
}
