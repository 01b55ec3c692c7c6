/**
 * Time limits in tests are safety nets against a hang, never speed checks. Each one is derived from a time
 * measured for that step on this project's 2-core machine, and the load average it was measured at (the comment
 * beside the call says where): MARGIN times the measured time, times how much slower a busier machine is.
 * A CPU-bound step at load average L on 2 cores gets about 2/L of a core, so it runs max(1, L/2) times slower
 * than idle. CI runs at load 4–7: the limits are sized for TARGET_LOAD 7, and
 * `CHORUS_TEST_LOAD=<load average>` sizes them for a busier machine.
 */
export const MARGIN = 4;
/** No limit is shorter: failing a hang sooner saves little, while a brief stall of a busy machine would fail the run. */
export const MIN_LIMIT_MS = 30_000;
const CORES_WHEN_MEASURED = 2;
export const TARGET_LOAD = Math.max(7, Number(process.env.CHORUS_TEST_LOAD) || 0);

const slowdown = (load: number) => Math.max(1, load / CORES_WHEN_MEASURED);

/**
 * The limit for a step that took `measuredMs` at load average `measuredAtLoad` (1-minute, from `uptime`):
 * measured × MARGIN × (slowdown at TARGET_LOAD ÷ slowdown when measured, at least 1), and at least `floorMs`
 * (MIN_LIMIT_MS; pass 0 for a wait that is retried rather than failed, where a short one is the point).
 */
export function limitMs(measuredMs: number, measuredAtLoad: number, floorMs = MIN_LIMIT_MS): number {
  return Math.max(
    floorMs,
    Math.ceil(measuredMs * MARGIN * Math.max(1, slowdown(TARGET_LOAD) / slowdown(measuredAtLoad))),
  );
}
