/**
 * The console at a phone's width (390 px): every page without sideways scroll, reached whole by keyboard, and
 * without a serious or critical axe-core violation (test/support/console-layout-run.ts says how).
 */

import { layoutTest } from '../support/console-layout-run.ts'

layoutTest(390)
