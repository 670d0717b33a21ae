/**
 * @module The work count of a proposal run: it says when the run should yield (a yield point every so
 * many steps; the actor groups yields into slices by time) and counts what the searches examined.
 */

export class WorkMeter {
  readonly #yieldStepsMax: number
  #stepsSinceYield = 0
  #stepsTotal = 0
  #candidates = 0
  #searches = 0
  #searchesSpent = 0
  #searchCandidatesMax = 0

  constructor(yieldStepsMax: number) {
    this.#yieldStepsMax = yieldStepsMax
  }

  /** Counts steps; true when a yield is due, which the caller answers with a yield (the count starts again). */
  spend(steps: number): boolean {
    this.#stepsSinceYield += steps
    this.#stepsTotal += steps
    if (this.#stepsSinceYield < this.#yieldStepsMax) return false
    this.#stepsSinceYield = 0
    return true
  }

  /** Records one search (one line in 1:1, one target in a group pass): the candidates it examined, and whether it ran out of budget. */
  searched(candidates: number, spent: boolean): void {
    this.#candidates += candidates
    this.#searches += 1
    if (spent) this.#searchesSpent += 1
    if (candidates > this.#searchCandidatesMax) this.#searchCandidatesMax = candidates
  }

  /** What the run did so far: the bench reports it beside the times (work that does not depend on the machine's load). */
  get work(): ProposalWork {
    return { stepsTotal: this.#stepsTotal, candidates: this.#candidates, searches: this.#searches, searchesSpent: this.#searchesSpent, searchCandidatesMax: this.#searchCandidatesMax }
  }
}

export interface ProposalWork {
  readonly stepsTotal: number
  /** Items looked at and combinations tried, over every search. */
  readonly candidates: number
  readonly searches: number
  /** Searches that ran out of their candidate budget (they propose nothing). */
  readonly searchesSpent: number
  readonly searchCandidatesMax: number
}
