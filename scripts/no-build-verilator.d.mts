/** Types of scripts/no-build-verilator.mjs, for the test that checks it. */
export function noBuildVerilatorEnv(root: string, log?: string): { env: { PATH: string }; unset: string[] };
