/**
 * @module The registry's assignment of rate slots (EDGE_THREADS=1, SHARDS > 1): each workspace gets one slot of
 * the shared rate budgets (edge/shared-rate-buckets.ts), in the order the registry knows them, never reused or
 * moved while the process lives (workspaces are never deleted), so every thread's edge finds a workspace's
 * budget at the same place. The memory is made here, on the main thread, in pages: a page is added when a new
 * workspace's slot is past the last one, and handed to every thread with that workspace. The same assignment gives
 * each API key its slot of the send-buffer counts (edge/shared-send-buffers.ts: keys are never deleted either), in
 * pages of their own.
 */

import { SharedRateBuckets } from '../edge/shared-rate-buckets.js'

/** Slots per page: 1,024 workspaces' budgets in 56 KiB. */
export const rateSlotsPerPage = 1024

/** What a thread needs to find every workspace's budget: the pages and the slots assigned so far. */
export interface RateSlotsState {
  readonly pages: readonly SharedArrayBuffer[]
  readonly slots: readonly (readonly [string, number])[]
}

/** A slot given to a new workspace, with the page it opened (null: it is in a page the threads have). */
export interface RateSlotAssigned {
  readonly slot: number
  readonly page: SharedArrayBuffer | null
}

export class RateSlots {
  readonly #slots = new Map<string, number>()
  readonly #pages: SharedArrayBuffer[] = []
  readonly #allocatePage: () => SharedArrayBuffer

  /** `allocatePage`: a page of rateSlotsPerPage slots (default: the rate budgets'). */
  constructor(workspaces: Iterable<string>, allocatePage: () => SharedArrayBuffer = () => SharedRateBuckets.allocate(rateSlotsPerPage)) {
    this.#allocatePage = allocatePage
    for (const workspace of workspaces) this.assign(workspace)
  }

  /** The workspace's slot: the one it has, else the next (and a new page when that is past the last). */
  assign(workspace: string): RateSlotAssigned {
    const known = this.#slots.get(workspace)
    if (known !== undefined) return { slot: known, page: null }
    const slot = this.#slots.size
    this.#slots.set(workspace, slot)
    if (slot < this.#pages.length * rateSlotsPerPage) return { slot, page: null }
    const page = this.#allocatePage()
    this.#pages.push(page)
    return { slot, page }
  }

  get state(): RateSlotsState {
    return { pages: [...this.#pages], slots: [...this.#slots] }
  }
}
