// On a narrow screen every table of the console becomes a list of cards (style.css): each cell then shows
// its column's name before its value. The names come from the table's own header row, copied onto the
// cells as data-label whenever the page changes, so no table has to repeat them.

function labelTable(table) {
  const headers = [...(table.tHead?.rows[0]?.cells ?? [])].map((cell) => cell.textContent.trim())
  for (const body of table.tBodies) {
    for (const row of body.rows) {
      [...row.cells].forEach((cell, index) => {
        const label = headers[index] ?? ''
        if (label === '') cell.removeAttribute('data-label')
        else if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label)
      })
    }
  }
}

/** Labels the cells of every `table.list` under `root`, now and after every change of the page's elements. */
export function labelTableCells(root) {
  let pending = false
  const run = () => { pending = false; for (const table of root.querySelectorAll('table.list')) labelTable(table) }
  // Only added and removed nodes are watched: setting data-label changes attributes, so it never triggers itself.
  new MutationObserver(() => { if (!pending) { pending = true; queueMicrotask(run) } }).observe(root, { childList: true, subtree: true })
  run()
}
