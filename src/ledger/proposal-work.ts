/** @module The work count that cuts a proposal run into slices: the run yields whenever a slice's worth of steps is spent. */

export class WorkMeter {
  readonly #sliceStepsMax: number
  #stepsInSlice = 0
  #stepsTotal = 0

  constructor(sliceStepsMax: number) {
    this.#sliceStepsMax = sliceStepsMax
  }

  /** Counts steps; true when the slice is full, which the caller answers with a yield (the count starts again). */
  spend(steps: number): boolean {
    this.#stepsInSlice += steps
    this.#stepsTotal += steps
    if (this.#stepsInSlice < this.#sliceStepsMax) return false
    this.#stepsInSlice = 0
    return true
  }

  get stepsTotal(): number {
    return this.#stepsTotal
  }
}
